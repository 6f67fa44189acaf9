package api_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestRunInputDurationsReadAsWritten(t *testing.T) {
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "alice", ApprovalTimeout: 24 * time.Hour, ToolTimeout: 5 * time.Second}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	require.JSONEq(t, `{"repo":"acme/widgets","pullNumber":1,"userId":"alice","approvalTimeout":"24h0m0s","toolTimeout":"5s"}`, string(b))
	var back api.RunInput
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, in, back)

	zero, err := json.Marshal(api.RunInput{Repo: "acme/widgets"})
	require.NoError(t, err)
	require.NotContains(t, string(zero), "Timeout", "an unset duration stays out of the input")
}

func TestRunInputDurationsAreDurationStringsOnly(t *testing.T) {
	var in api.RunInput
	require.NoError(t, json.Unmarshal([]byte(`{"repo":"acme/widgets","approvalTimeout":"2h","toolTimeout":"1m30s"}`), &in))
	require.Equal(t, 2*time.Hour, in.ApprovalTimeout)
	require.Equal(t, 90*time.Second, in.ToolTimeout)
	for _, bad := range []string{`{"approvalTimeout":"soon"}`, `{"approvalTimeout":true}`, `{"toolTimeout":7200000000000}`} {
		require.Error(t, json.Unmarshal([]byte(bad), &in), bad)
	}
}

func TestCallbackDeadlineIsADurationString(t *testing.T) {
	b, err := json.Marshal(api.Callback{URL: "https://example.com/hook", Deadline: 90 * time.Minute})
	require.NoError(t, err)
	require.JSONEq(t, `{"url":"https://example.com/hook","deadline":"1h30m0s"}`, string(b))
	var back api.Callback
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, 90*time.Minute, back.Deadline)
	require.Error(t, json.Unmarshal([]byte(`{"url":"u","deadline":5400000000000}`), &back))
}
