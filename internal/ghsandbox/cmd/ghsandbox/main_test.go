package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

func TestCorruptStateFileStopsStartUpNamingSandboxState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"nextComm`), 0o644))
	cfg, err := loadConfig(func(name string) string {
		return map[string]string{"SANDBOX_STATE": path}[name]
	})
	require.NoError(t, err)

	_, err = newSandbox(ghsandbox.DefaultFixture(), cfg.StatePath)

	require.ErrorContains(t, err, "SANDBOX_STATE")
	require.ErrorContains(t, err, path)
}

func TestWithoutSandboxStateNothingIsWritten(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	require.NoError(t, err)
	dir := t.TempDir()
	t.Chdir(dir)

	sandbox, err := newSandbox(ghsandbox.DefaultFixture(), cfg.StatePath)

	require.NoError(t, err)
	require.NotNil(t, sandbox)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}

func TestSandboxServesOnTheListenerItIsGivenUntilItsContextEnds(t *testing.T) {
	l := testkit.Listen(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sandbox := testkit.RunInBackground(t, func(ctx context.Context) error {
		return run(ctx, quiet, func(string) string { return "" }, l)
	})

	// The listener is bound before run starts, so the first request is
	// queued by the kernel rather than refused: no wait for readiness.
	resp, err := http.Get("http://" + l.Addr().String() + "/_sandbox/faults")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	sandbox.Stop(t, "the sandbox")
	_, err = net.Dial("tcp", l.Addr().String())
	require.Error(t, err, "the listener is closed once the sandbox stops")
}

func TestBadSandboxAddrStopsStartUpWithExitCode2NamingIt(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))

	err := run(context.Background(), quiet, func(name string) string {
		return map[string]string{"SANDBOX_ADDR": "9090"}[name]
	}, nil)

	require.ErrorContains(t, err, `SANDBOX_ADDR: "9090" is not host:port`)
	require.Equal(t, 2, exitCode(err))
	require.Equal(t, 1, exitCode(errors.New("serve: closed")))
}
