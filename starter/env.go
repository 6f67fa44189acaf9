package main

import (
	"context"
	"io"
	"log/slog"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/runclient"
)

// env is what every command shares: the process environment, its output,
// and the one Temporal client, dialled on first use, under the run client.
type env struct {
	// settings is the environment, read once; settingsErr stops every
	// command that needs it.
	settings       settings
	settingsErr    error
	stdout, stderr io.Writer
	client         client.Client
	runs           *runclient.Client
	// tracing puts the start and the signals into the run's trace when
	// OTEL_EXPORTER_OTLP_ENDPOINT is set; nil otherwise.
	tracing *telemetry.Tracing
	// pollEvery is how often --follow and the wait after a signal ask the run
	// for news; queries are cheap (a few ms) so a person sees a change at once.
	pollEvery time.Duration
	// reactionWait bounds how long approve/reject/resolve wait for the run to
	// record what it did with the signal.
	reactionWait time.Duration
}

func newEnv(getenv func(string) string, stdout, stderr io.Writer) *env {
	s, err := starterSettings().Read(getenv)
	return &env{
		settings:     s,
		settingsErr:  err,
		stdout:       stdout,
		stderr:       stderr,
		pollEvery:    300 * time.Millisecond,
		reactionWait: 10 * time.Second,
	}
}

// runClient returns the run client, dialling Temporal the first time.
func (e *env) runClient(ctx context.Context) (*runclient.Client, error) {
	if e.runs != nil {
		return e.runs, nil
	}
	cfg := e.settings.temporal
	var err error
	if e.tracing, err = telemetry.NewTracing(ctx, e.settings.traces); err != nil {
		return nil, err
	}
	cfg.Interceptors = e.tracing.Interceptors()
	// The SDK's informational logs would bury the command's own output.
	logger := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	c, err := temporalclient.Dial(ctx, cfg, logger)
	if err != nil {
		return nil, err
	}
	e.client = c
	e.tracing.Join(c, cfg.Namespace)
	// No call timeout: a person at a terminal stops a slow command with ^C.
	e.runs = runclient.New(c, runclient.Options{DataConverter: cfg.DataConverter(), Address: cfg.Address, Namespace: cfg.Namespace})
	return e.runs, nil
}

func (e *env) close() {
	if e.client != nil {
		e.client.Close()
	}
	// The spans of a command are sent before it exits, within a bound.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = e.tracing.Shutdown(ctx) // a lost span must not fail the command

}
