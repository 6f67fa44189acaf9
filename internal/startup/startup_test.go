package startup_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

func TestExitCodeTellsConfigurationFromOtherFailures(t *testing.T) {
	require.Equal(t, 0, startup.ExitCode(nil))
	require.Equal(t, 1, startup.ExitCode(errors.New("dial: refused")))
	wrapped := errors.Join(errors.New("shutdown"), &startup.ConfigError{Err: errors.New("TEMPORAL_TLS: not a bool")})
	require.Equal(t, 2, startup.ExitCode(wrapped))
	require.EqualError(t, &startup.ConfigError{Err: errors.New("x")}, "configuration: x")
}

func TestMetricsAddressInUseIsAConfigurationErrorBeforeAnyDial(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = taken.Close() })
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	conn, err := startup.Connect(context.Background(), telemetry.Config{MetricsAddr: taken.Addr().String()}, nil,
		temporalclient.Config{Address: "127.0.0.1:1", Namespace: "default"}, logger)

	require.Nil(t, conn)
	var cfgErr *startup.ConfigError
	require.ErrorAs(t, err, &cfgErr)
	require.Contains(t, err.Error(), "METRICS_ADDR")
	require.Equal(t, 2, startup.ExitCode(err))
}
