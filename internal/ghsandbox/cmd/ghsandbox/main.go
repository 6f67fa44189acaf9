// Command ghsandbox serves the fake GitHub for the local stack and the fault
// suite. Point GITHUB_API_URL at it. `ghsandbox --help` lists its settings
// (its settings package): the listen address, a fixture, and a state file
// that keeps comments and the next comment ID across a restart.
//
// Any token is accepted and stands for the fixture's botLogin (GET /user).
// To play a person on the pull request, for example its author forging an
// operation marker:
//
//	curl -d '{"owner":"acme","repo":"widgets","number":1,"user":"carol","body":"hi"}' \
//	  http://127.0.0.1:9090/_sandbox/comments
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

	"github.com/agentrun/agentrun/internal/config"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/ghsandbox/cmd/ghsandbox/settings"
	"github.com/agentrun/agentrun/internal/httpstatus"
)

const shutdownTimeout = 5 * time.Second

func loadConfig(getenv func(string) string) (settings.Config, error) {
	return settings.Settings().Read(getenv)
}

func main() {
	if settings.Settings().PrintHelp(os.Args[1:], os.Stdout) {
		return
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, log, config.Getenv, nil)
	stop()
	if err != nil {
		log.Error("ghsandbox stopped", "err", err)
		os.Exit(exitCode(err))
	}
}

// exitCode is 2 for a bad setting, as for the other programs, and 1 for
// any other failure.
func exitCode(err error) int {
	var cfgErr *config.Error
	if errors.As(err, &cfgErr) {
		return 2
	}
	return 1
}

// run serves until ctx ends. It serves on listener when one is given (a test
// opens it on port 0 and keeps it, so no parallel test can take the port
// between choosing and binding it), else on SANDBOX_ADDR. run closes
// listener when it returns.
func run(ctx context.Context, log *slog.Logger, getenv func(string) string, listener net.Listener) error {
	if listener != nil {
		defer listener.Close() // already closed by Shutdown when it served
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	fixture, err := loadFixture(cfg.FixturePath)
	if err != nil {
		return err
	}
	sandbox, err := newSandbox(fixture, cfg.StatePath)
	if err != nil {
		return err
	}
	sandbox.SetWebhook(cfg.Webhook)
	if cfg.App.ID != 0 {
		if err := sandbox.SetApp(cfg.App); err != nil {
			return err
		}
		fixture.BotLogin = sandbox.BotLogin()
	}
	if listener == nil {
		listener, err = net.Listen("tcp", cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen on SANDBOX_ADDR %s: %w", cfg.Addr, err)
		}
	}
	srv := &http.Server{
		Handler:           logRequests(log, sandbox),
		ReadHeaderTimeout: 10 * time.Second,
		// Requests end with the process: a response held by a delay fault
		// lets go as soon as the signal arrives.
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(listener) }()
	log.Info("ghsandbox listening", "addr", listener.Addr().String(),
		"GITHUB_API_URL", "http://"+listener.Addr().String()+"/", "bot", fixture.BotLogin, "state", stateDescription(cfg.StatePath))

	select {
	case err := <-served:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	log.Info("ghsandbox shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("ghsandbox closing connections that did not finish", "err", err)
		_ = srv.Close() // what is left is cut off; nothing more to report
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	log.Info("ghsandbox stopped")
	return nil
}

func loadFixture(path string) (ghsandbox.Fixture, error) {
	if path == "" {
		return ghsandbox.DefaultFixture(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return ghsandbox.Fixture{}, fmt.Errorf("SANDBOX_FIXTURE: %w", err)
	}
	defer f.Close()
	fixture, err := ghsandbox.LoadFixture(f)
	if err != nil {
		return ghsandbox.Fixture{}, fmt.Errorf("SANDBOX_FIXTURE %s: %w", path, err)
	}
	return fixture, nil
}

// newSandbox keeps the sandbox's state in statePath when it is set. A state
// file that cannot be used stops start-up: starting empty would hand out
// comment IDs that runs and links still point at.
func newSandbox(fixture ghsandbox.Fixture, statePath string) (*ghsandbox.Server, error) {
	if statePath == "" {
		return ghsandbox.New(fixture), nil
	}
	sandbox, err := ghsandbox.NewPersistent(fixture, statePath)
	if err != nil {
		return nil, fmt.Errorf("SANDBOX_STATE: %w", err)
	}
	return sandbox, nil
}

func stateDescription(statePath string) string {
	if statePath == "" {
		return "in memory (set SANDBOX_STATE to keep it)"
	}
	return statePath
}

func logRequests(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &httpstatus.Recorder{ResponseWriter: w}
		defer func() {
			// status 0: the connection was dropped on purpose or the client left.
			log.Info("request", "method", r.Method, "path", r.URL.Path,
				"status", rec.Status, "duration", time.Since(start))
		}()
		next.ServeHTTP(rec, r)
	})
}
