package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestABadVariableStopsEveryCommandWithExitCode2NamingIt(t *testing.T) {
	for _, args := range [][]string{{"status", "run-1"}, {"list"}, {"start", "--repo", "acme/widgets", "--pr", "1"}} {
		var stdout, stderr bytes.Buffer

		code := run(context.Background(), args, standalone.Getenv(map[string]string{"AGENT_TASK_QUEUE": "agent runs"}), &stdout, &stderr)

		require.Equal(t, exitUsage, code, "%v", args)
		require.Contains(t, stderr.String(), "AGENT_TASK_QUEUE: contains whitespace", "%v", args)
		require.Empty(t, stdout.String())
	}
}

func TestHelpListsEveryVariableTheStarterReads(t *testing.T) {
	var stdout, stderr bytes.Buffer

	code := run(context.Background(), []string{"--help"}, standalone.Getenv(nil), &stdout, &stderr)

	require.Equal(t, exitOK, code)
	for _, v := range starterSettings().Vars() {
		require.Contains(t, stderr.String(), "\n  "+v.Name+" ", v.Name)
	}
}

func TestTheFlagsDefaultToTheSettings(t *testing.T) {
	e := newEnv(standalone.Getenv(map[string]string{"USER": "carol", "AGENT_TASK_QUEUE": "reviews"}), nil, nil)
	require.NoError(t, e.settingsErr)
	cmd := &startCommand{env: e}

	req, err := cmd.parse([]string{"--repo", "acme/widgets", "--pr", "1"})

	require.NoError(t, err)
	require.Equal(t, "carol", req.Input.UserID)
	require.Equal(t, "reviews", req.TaskQueue)
	_, err = starterSettings().Read(standalone.Getenv(nil))
	require.NoError(t, err, "the defaults alone are a valid configuration")
}
