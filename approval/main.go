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

	"github.com/agentrun/agentrun/approval/settings"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/runclient"
)

const shutdownGrace = 10 * time.Second

// temporalCallTimeout bounds one call to Temporal so that a handler answers
// 503 instead of hanging when the server or the workers are gone.
const temporalCallTimeout = 10 * time.Second

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// First: the environment as exec'd holds the webhook and API secrets
	// and the payload keys, readable at /proc/<pid>/environ by any process
	// of the same user until this.
	if err := startup.MakeNonDumpable(); err != nil {
		os.Exit(exitCode(err, logger))
	}
	table := settings.Settings()
	if table.PrintHelp(os.Args[1:], os.Stdout) {
		return
	}
	getenv, err := table.TakeEnvironment()
	if err != nil {
		os.Exit(exitCode(err, logger))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err = run(ctx, getenv, logger)
	stop()
	os.Exit(exitCode(err, logger))
}

// exitCode is startup's: 2 for a bad configuration, as for the worker, and
// 1 for any other failure.
func exitCode(err error, logger *slog.Logger) int {
	if err != nil {
		logger.Error("approval server stopped", "err", err)
	}
	return startup.ExitCode(err)
}

func run(ctx context.Context, getenv func(string) string, logger *slog.Logger) error {
	return runOn(ctx, getenv, logger, nil)
}

// runOn is run serving on listeners already open, by the variable that names
// their address (APPROVAL_ADDR, APPROVAL_WEBHOOK_ADDR); an endpoint without
// one listens on its address. Tests open theirs on port 0 and pass them in:
// a port chosen and then released could be taken by a parallel test before
// the server binds it. runOn closes every listener in bound when it returns.
func runOn(ctx context.Context, getenv func(string) string, logger *slog.Logger, bound map[string]net.Listener) error {
	defer func() {
		for _, l := range bound {
			_ = l.Close() // already closed by a served endpoint's shutdown, or never used
		}
	}()
	cfg, err := loadConfig(getenv)
	if err != nil {
		return &startup.ConfigError{Err: err}
	}
	for _, warning := range cfg.Server.InsecureWarnings() {
		logger.Warn("APPROVAL_INSECURE_DEV=1: NOT FOR PRODUCTION: " + warning)
	}
	if !cfg.Server.InsecureDev && cfg.Server.IdentityHeader == "" {
		logger.Warn("the pages answer 401 to everyone: serve them behind a login proxy named by APPROVAL_IDENTITY_HEADER and APPROVAL_TRUSTED_PROXIES")
	}
	conn, err := startup.Connect(ctx, cfg.Telemetry, bound["METRICS_ADDR"], cfg.Temporal, logger)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	tel, temporal := conn.Telemetry, conn.Temporal
	tel.Tracing.Join(temporal, cfg.Temporal.Namespace)
	srv, err := newServer(ctx, cfg, temporal, logger)
	if err != nil {
		return err
	}
	endpoints := []endpoint{{variable: "APPROVAL_ADDR", addr: cfg.Server.Addr, handler: withHTTPMetrics(tel, srv.Handler())}}
	if cfg.Server.WebhookAddr != "" {
		endpoints = append(endpoints, endpoint{variable: "APPROVAL_WEBHOOK_ADDR", addr: cfg.Server.WebhookAddr,
			handler: withHTTPMetrics(tel, srv.WebhookHandler())})
	}
	if err := listenAll(endpoints, bound, logger); err != nil {
		return err
	}
	logger.Info("approval server ready", append(cfg.Temporal.LogAttrs(), "identityHeader", cfg.Server.IdentityHeader,
		"separateWebhook", cfg.Server.WebhookAddr != "", "codecEndpoint", cfg.Codec.Enabled())...)
	return serve(ctx, endpoints)
}

// endpoint is one listener of the process: the API and pages, or the webhook
// alone when APPROVAL_WEBHOOK_ADDR is set.
type endpoint struct {
	variable string
	addr     string
	handler  http.Handler
	listener net.Listener
}

// listenAll opens every endpoint's listener before any serves, so that a bad
// second address stops start-up instead of leaving half a server. An
// endpoint with a listener in bound takes that one.
func listenAll(endpoints []endpoint, bound map[string]net.Listener, logger *slog.Logger) error {
	for i := range endpoints {
		l, ok := bound[endpoints[i].variable]
		var err error
		if !ok {
			l, err = net.Listen("tcp", endpoints[i].addr)
		}
		if err != nil {
			for _, opened := range endpoints[:i] {
				_ = opened.listener.Close()
			}
			return &startup.ConfigError{Err: fmt.Errorf("%s %s: %w", endpoints[i].variable, endpoints[i].addr, err)}
		}
		endpoints[i].listener = l
		logger.Info("approval server listening", "variable", endpoints[i].variable, "addr", l.Addr().String())
	}
	return nil
}

// newServer wires the server over the process's one Temporal client.
func newServer(ctx context.Context, cfg settings.Program, temporal client.Client, logger *slog.Logger) (*approvalsrv.Server, error) {
	gh, err := github.Open(cfg.GitHub, nil, "")
	if err != nil {
		return nil, err
	}
	if gh.AppMode() {
		// Once, at start: a wrong app ID or key is a start-up error here,
		// not a refused permission check on the first comment.
		idCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := gh.Identify(idCtx)
		cancel()
		var refused *github.AppAuthError
		if errors.As(err, &refused) {
			return nil, &startup.ConfigError{Err: err}
		}
		if err != nil {
			return nil, fmt.Errorf("read the GitHub App: %w", err)
		}
		logger.Info("GitHub App mode", "githubLogin", gh.Login(), "githubApiUrl", gh.BaseURL())
	}
	runs := runclient.New(temporal, runclient.Options{CallTimeout: temporalCallTimeout, DataConverter: cfg.Temporal.DataConverter(),
		Address: cfg.Temporal.Address, Namespace: cfg.Temporal.Namespace})
	return approvalsrv.New(cfg.Server, approvalsrv.Options{
		Runs:        runs,
		Permissions: gh,
		Pulls:       pullHeads{gh},
		Logger:      logger,
		Codec:       codecHandler(cfg, logger),
	})
}

// serve runs every endpoint until ctx ends or one of them fails. Handlers'
// contexts derive from ctx so that open event streams end at shutdown
// instead of holding it up.
func serve(ctx context.Context, endpoints []endpoint) error {
	served := make(chan error, len(endpoints))
	servers := make([]*http.Server, len(endpoints))
	for i, e := range endpoints {
		servers[i] = &http.Server{
			Handler:           e.handler,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       30 * time.Second,
			IdleTimeout:       2 * time.Minute,
			BaseContext:       func(net.Listener) context.Context { return ctx },
		}
		go func() {
			if err := servers[i].Serve(e.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
				served <- fmt.Errorf("serve %s: %w", e.variable, err)
			}
		}()
	}
	var failed error
	select {
	case failed = <-served:
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	errs := []error{failed}
	for _, server := range servers {
		if err := server.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			errs = append(errs, fmt.Errorf("shutdown: %w", err))
		}
	}
	return errors.Join(errs...)
}

// pullHeads reads a pull request's head for /agentrun review.
type pullHeads struct{ acc *github.Access }

func (p pullHeads) PullHead(ctx context.Context, owner, repo string, number int, installation int64) (approvalsrv.PullHead, error) {
	sha, draft, open, err := p.acc.PullHead(ctx, owner, repo, number, installation)
	return approvalsrv.PullHead{SHA: sha, Draft: draft, Open: open}, err
}
