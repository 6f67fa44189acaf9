// Package devserver starts a real Temporal dev server (the CLI binary built
// into bin/temporal) for tests, with the tuned settings of
// /work/shared/DEVSERVER.md and agentrun's search attributes registered.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/temporalclient"
)

// startTimeout covers a cold start of the server on a busy 2-core machine.
const startTimeout = 2 * time.Minute

// Options configures a dev server.
type Options struct {
	// DBFile makes the server persist to this SQLite file (WAL mode), so that
	// Restart keeps every workflow. Empty means in memory, which is faster
	// but cannot be restarted.
	DBFile string
	// DynamicConfig adds --dynamic-config-value settings (key=value), e.g.
	// for fault tests that need other server limits.
	DynamicConfig []string
}

// Server is a running dev server and a client connected to it.
type Server struct {
	t       testing.TB
	opts    Options
	binary  string
	address string
	client  client.Client
	process *testsuite.DevServer
	output  *tailBuffer
}

// Start starts a dev server on a free port, stops it when the test ends, and
// fails the test if it cannot.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{t: t, opts: opts, binary: temporalBinary(t), output: newTailBuffer(16 << 10)}
	s.address = FreeAddress(t)
	s.launch()

	c, err := temporalclient.Dial(context.Background(), s.Config(), QuietLogger())
	if err != nil {
		s.Stop()
		t.Fatalf("dial the dev server: %v", err)
	}
	s.client = c
	t.Cleanup(func() {
		c.Close()
		s.Stop()
		if t.Failed() {
			t.Logf("dev server output (tail):\n%s", s.output.String())
		}
	})
	return s
}

// Client is a client of the server. It outlives Restart: the SDK reconnects.
func (s *Server) Client() client.Client { return s.client }

// Address is the server's host:port.
func (s *Server) Address() string { return s.address }

// Config is what temporalclient.Dial needs to reach this server.
func (s *Server) Config() temporalclient.Config {
	return temporalclient.Config{Address: s.address, Namespace: temporalclient.DefaultNamespace}
}

// Stop stops the server process and waits for it to exit. Stopping a stopped
// server does nothing.
func (s *Server) Stop() {
	if s.process == nil {
		return
	}
	err := s.process.Stop()
	s.process = nil
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		s.t.Errorf("stop the dev server at %s: %v", s.address, err)
	}
}

// Restart stops the server (if running) and starts it again on the same
// address with the same DB file. Only a server with a DBFile can restart:
// an in-memory one would come back empty.
func (s *Server) Restart() {
	s.t.Helper()
	if s.opts.DBFile == "" {
		s.t.Fatalf("devserver: Restart needs Options.DBFile; an in-memory server loses every workflow")
	}
	s.Stop()
	s.launch()
}

func (s *Server) launch() {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	process, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath: s.binary,
		ClientOptions: &client.Options{
			HostPort: s.address,
			Logger:   quietSDKLogger(),
		},
		DBFilename:       s.opts.DBFile,
		LogLevel:         "error",
		SearchAttributes: SearchAttributes(),
		ExtraArgs:        tunedArgs(s.opts),
		Stdout:           s.output,
		Stderr:           s.output,
	})
	if err != nil {
		s.t.Fatalf("start the dev server at %s: %v\n%s", s.address, err, s.output.String())
	}
	// Our own client (made once in Start) is the one tests use.
	process.Client().Close()
	s.process = process
}

// SearchAttributes are those the workflow upserts, as api declares them (the
// values only carry the types): what every server of the tests registers.
func SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		api.SearchAttrStatus.ValueSet(""),
		api.SearchAttrConversation.ValueSet(""),
		api.SearchAttrActionIDs.ValueSet(nil),
	)
}

// tunedArgs are the settings measured in DEVSERVER.md: without them every
// task hand-off waits on a 20/s poll limit.
func tunedArgs(opts Options) []string {
	config := []string{
		"history.transferProcessorMaxPollRPS=1000",
		"matching.numTaskqueueReadPartitions=1",
		"matching.numTaskqueueWritePartitions=1",
	}
	var args []string
	if opts.DBFile == "" {
		config = append(config,
			"system.enableActivityEagerExecution=true",
			"system.enableEagerWorkflowStart=true",
		)
	} else {
		args = append(args, "--sqlite-pragma", "journal_mode=wal", "--sqlite-pragma", "synchronous=normal")
	}
	for _, kv := range append(config, opts.DynamicConfig...) {
		args = append(args, "--dynamic-config-value", kv)
	}
	return args
}

// temporalBinary finds bin/temporal at the repository root.
func temporalBinary(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("devserver: %v", err)
	}
	path := filepath.Join(root, "bin", "temporal")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("devserver: no Temporal CLI at %s; build it with `make bin/temporal` (%v)", path, err)
	}
	return path
}

// RepoRoot walks up from the working directory to the directory holding
// go.mod: tests run in their package's directory, and the binaries and
// fixtures they need are found from the root.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// FreeAddress is a loopback host:port nobody listens on right now, for a
// server in another process that takes its listen address as a setting, or
// for a test that needs an address where nothing answers. The port is free
// only until someone else binds it: a server in the test's own process
// should be handed an open net.Listener instead (approval's runOn, the
// sandbox's run, httptest).
func FreeAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// QuietLogger keeps the client's reconnect warnings (expected around Restart)
// out of test output; errors still show.
func QuietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}
