package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func parseStartWith(t *testing.T, env map[string]string, args ...string) (runclient.StartRequest, error) {
	t.Helper()
	env["USER"] = "carol"
	cmd := &startCommand{env: newEnv(func(k string) string { return env[k] }, nil, nil)}
	return cmd.parse(args)
}

func TestStartCallbackUnderTheAllowListTravelsInTheRunsInput(t *testing.T) {
	req, err := parseStartWith(t, map[string]string{"AGENTRUN_CALLBACK_ALLOWED": "https://hooks.example.com/agentrun/"},
		"--repo", "acme/widgets", "--pr", "7", "--callback", "https://hooks.example.com/agentrun/o/9", "--callback-deadline", "2h")
	require.NoError(t, err)
	require.Equal(t, &api.Callback{URL: "https://hooks.example.com/agentrun/o/9", Deadline: 2 * time.Hour}, req.Input.Callback)
	require.Equal(t, runclient.RequestHash(req.Input), req.RequestHash, "another callback under the same key is another request")
}

func TestStartCallbackOutsideTheAllowListIsRefusedSayingWhy(t *testing.T) {
	for allowed, why := range map[string]string{
		"https://ok.example.com": "under none of the prefixes AGENTRUN_CALLBACK_ALLOWED allows",
		"":                       "AGENTRUN_CALLBACK_ALLOWED is empty",
	} {
		_, err := parseStartWith(t, map[string]string{"AGENTRUN_CALLBACK_ALLOWED": allowed},
			"--repo", "acme/widgets", "--pr", "7", "--callback", "https://ok.example.com.evil.com/hook")
		require.ErrorContains(t, err, "--callback: callback URL refused")
		require.ErrorContains(t, err, why)
	}
}

func TestStartWithoutACallbackCarriesNone(t *testing.T) {
	req, err := parseStartWith(t, map[string]string{}, "--repo", "acme/widgets", "--pr", "7")
	require.NoError(t, err)
	require.Nil(t, req.Input.Callback)
}
