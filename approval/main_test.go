package main

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/devserver"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestApprovalRefusesBadConfigWithExitCode2NamingTheVariable(t *testing.T) {
	cases := map[string]map[string]string{
		"APPROVAL_SECRET":       {},
		"GITHUB_WEBHOOK_SECRET": {"APPROVAL_SECRET": e2eSecret},
		"APPROVAL_INSECURE_DEV": {"APPROVAL_INSECURE_DEV": "maybe"},
		"TEMPORAL_ADDRESS":      {"APPROVAL_INSECURE_DEV": "1", "TEMPORAL_ADDRESS": "no-port"},
		"GITHUB_API_URL":        {"APPROVAL_INSECURE_DEV": "1", "GITHUB_API_URL": "ftp://example"},
		"GITHUB_TOKEN":          {"APPROVAL_INSECURE_DEV": "1", "GITHUB_TOKEN": "ghp_x\n"},
	}
	for variable, env := range cases {
		t.Run(variable, func(t *testing.T) {
			err := run(context.Background(), envOf(env), quietLogger())

			require.ErrorContains(t, err, variable)
			require.Equal(t, 2, exitCode(err, quietLogger()))
		})
	}
}

func TestApprovalWithoutTemporalExitsWith1(t *testing.T) {
	err := run(context.Background(), envOf(map[string]string{
		"APPROVAL_INSECURE_DEV": "1", "TEMPORAL_ADDRESS": "127.0.0.1:1",
	}), quietLogger())

	require.ErrorContains(t, err, "cannot reach Temporal at 127.0.0.1:1")
	require.Equal(t, 1, exitCode(err, quietLogger()))
}

func TestApprovalServesUntilItsContextEnds(t *testing.T) {
	server := devserver.Start(t, devserver.Options{})
	addr := freeAddress(t)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		stopped <- run(ctx, envOf(map[string]string{
			"APPROVAL_ADDR": addr, "APPROVAL_SECRET": e2eSecret, "GITHUB_WEBHOOK_SECRET": e2eWebhookSecret,
			"TEMPORAL_ADDRESS": server.Address(),
		}), quietLogger())
	}()

	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 20*time.Millisecond)
	resp, err := http.Get("http://" + addr + "/v1/runs/no-such-run")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	cancel()
	select {
	case err := <-stopped:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop after its context ended")
	}
}

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}
