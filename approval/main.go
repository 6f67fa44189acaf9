// Command approval serves the approval API, the GitHub webhook and the web
// page that turn people's decisions into signals to AgentRun workflows.
//
//	go run ./approval
//
// See internal/approvalsrv for the endpoints and the README for the variables.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

const shutdownGrace = 10 * time.Second

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, logger)
	stop()
	os.Exit(exitCode(err, logger))
}

// configError is a configuration the server refuses to start with.
type configError struct{ err error }

func (e *configError) Error() string { return "configuration: " + e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

// exitCode is 2 for a bad configuration, as for the worker, and 1 for any
// other failure.
func exitCode(err error, logger *slog.Logger) int {
	if err == nil {
		return 0
	}
	logger.Error("approval server stopped", "err", err)
	var cfgErr *configError
	if errors.As(err, &cfgErr) {
		return 2
	}
	return 1
}

func run(ctx context.Context, getenv func(string) string, logger *slog.Logger) error {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return &configError{err}
	}
	for _, warning := range cfg.server.InsecureWarnings() {
		logger.Warn("APPROVAL_INSECURE_DEV=1: NOT FOR PRODUCTION: " + warning)
	}
	temporal, err := temporalclient.Dial(ctx, cfg.temporal, logger)
	if err != nil {
		return err
	}
	defer temporal.Close()
	handler, err := newHandler(cfg, temporal, logger)
	if err != nil {
		return err
	}
	listener, err := net.Listen("tcp", cfg.server.Addr)
	if err != nil {
		return &configError{fmt.Errorf("APPROVAL_ADDR %s: %w", cfg.server.Addr, err)}
	}
	logger.Info("approval server listening", "addr", listener.Addr().String(),
		"temporal", cfg.temporal.Address, "identityHeader", cfg.server.IdentityHeader)
	return serve(ctx, listener, handler)
}

// newHandler wires the server over the process's one Temporal client.
func newHandler(cfg config, temporal client.Client, logger *slog.Logger) (http.Handler, error) {
	gh, err := activities.NewGitHubClient(cfg.gitHubAPIURL, cfg.gitHubToken)
	if err != nil {
		return nil, err
	}
	srv, err := approvalsrv.New(cfg.server, approvalsrv.Options{
		Runs:        approvalsrv.TemporalRuns{Client: temporal},
		Permissions: approvalsrv.GitHubPermissions{Client: gh},
		Logger:      logger,
	})
	if err != nil {
		return nil, err
	}
	return srv.Handler(), nil
}

// serve runs until ctx ends. Handlers' contexts derive from ctx so that open
// event streams end at shutdown instead of holding it up.
func serve(ctx context.Context, listener net.Listener, handler http.Handler) error {
	server := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- server.Serve(listener) }()
	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
