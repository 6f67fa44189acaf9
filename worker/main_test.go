package main

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/internal/devserver"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestWorkerRefusesBadConfigWithExitCode2NamingTheVariable(t *testing.T) {
	for _, tc := range []struct {
		vars  map[string]string
		named string
	}{
		{map[string]string{"TEMPORAL_ADDRESS": "no-port"}, "TEMPORAL_ADDRESS"},
		{map[string]string{"GITHUB_API_URL": "not a url"}, "GITHUB_API_URL"},
		{map[string]string{"MODEL_PROVIDER": "no-such-model"}, "MODEL_PROVIDER"},
		{map[string]string{"MODEL_PROVIDER": "openai"}, "OPENAI_API_KEY"},
		{map[string]string{"LOG_FORMAT": "xml"}, "LOG_FORMAT"},
	} {
		t.Run(tc.named, func(t *testing.T) {
			var stderr bytes.Buffer

			err := run(context.Background(), envOf(tc.vars), &stderr)

			require.Equal(t, 2, exitCode(err, &stderr))
			require.Contains(t, stderr.String(), tc.named)
		})
	}
}

func TestWorkerWithUnreachableTemporalFailsNamingTheAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	var stderr bytes.Buffer

	err = run(context.Background(), envOf(map[string]string{"TEMPORAL_ADDRESS": addr}), &stderr)

	require.Equal(t, 1, exitCode(err, &stderr))
	require.Contains(t, stderr.String(), "cannot reach Temporal at "+addr)
}

func TestWorkerPollsItsTaskQueueAndStopsCleanlyWhenCancelled(t *testing.T) {
	server := devserver.Start(t, devserver.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() {
		done <- run(ctx, envOf(map[string]string{
			"TEMPORAL_ADDRESS": server.Address(),
			"AGENT_TASK_QUEUE": "worker-main-test",
		}), &logs)
	}()

	require.Eventually(t, func() bool {
		resp, err := server.Client().DescribeTaskQueue(context.Background(), "worker-main-test", enumspb.TASK_QUEUE_TYPE_WORKFLOW)
		return err == nil && len(resp.GetPollers()) > 0
	}, 30*time.Second, 50*time.Millisecond, "the worker never polled its task queue")
	cancel()

	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the worker did not stop after its context ended")
	}
}
