// Package startup is what the long-running mains (worker, approval) share
// between reading their configuration and doing their own work: which
// failures are configuration (exit code 2), telemetry, and the process's one
// Temporal client.
package startup

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// ConfigError is a configuration the program refuses to start with.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return "configuration: " + e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// ExitCode is 0 without an error, 2 for a bad configuration, so that a
// deploy can tell "fix the variables" from "try again", and 1 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var cfgErr *ConfigError
	if errors.As(err, &cfgErr) {
		return 2
	}
	return 1
}

// Connection is a process's telemetry and its one Temporal client, dialed
// with the telemetry's metrics and tracing.
type Connection struct {
	Telemetry *telemetry.Telemetry
	Temporal  client.Client
	logger    *slog.Logger
}

// Connect starts telemetry (on metrics when not nil, else on METRICS_ADDR)
// and dials Temporal. A METRICS_ADDR that cannot be listened on is a
// ConfigError. Close undoes both.
func Connect(ctx context.Context, tel telemetry.Config, metrics net.Listener, temporal temporalclient.Config, logger *slog.Logger) (*Connection, error) {
	t, err := telemetry.Setup(ctx, tel, metrics, logger)
	var listenErr *telemetry.ListenError
	if errors.As(err, &listenErr) {
		return nil, &ConfigError{err}
	}
	if err != nil {
		return nil, err
	}
	t.Serve()
	c := &Connection{Telemetry: t, logger: logger}
	c.Temporal, err = temporalclient.Dial(ctx, t.Instrument(temporal), logger)
	if err != nil {
		c.closeTelemetry(ctx)
		return nil, err
	}
	return c, nil
}

// telemetryFlushTimeout bounds the last export of spans at shut-down.
const telemetryFlushTimeout = 5 * time.Second

// Close closes the Temporal client, then stops /metrics and flushes the last
// spans, so that the counts of the process's final calls are exported too.
// ctx may already be done: the flush gets its own bound.
func (c *Connection) Close(ctx context.Context) {
	c.Temporal.Close()
	c.closeTelemetry(ctx)
}

func (c *Connection) closeTelemetry(ctx context.Context) {
	flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryFlushTimeout)
	defer cancel()
	if err := c.Telemetry.Close(flushCtx); err != nil {
		c.logger.Warn("telemetry did not close cleanly", "err", err)
	}
}
