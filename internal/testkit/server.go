// Package testkit is what tests share to reach real servers: a Temporal dev
// server (the CLI binary built into bin/temporal; see TemporalCLI) with tuned
// poll limits and agentrun's search attributes registered; a
// stack of that server, the GitHub sandbox over real HTTP and a worker
// registered exactly as the worker main registers it; and the repository
// root, free addresses and bound listeners those tests need.
package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os/exec"
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

// ServerOptions configures a dev server.
type ServerOptions struct {
	// DBFile makes the server persist to this SQLite file (WAL mode), so that
	// Restart keeps every workflow. Empty means in memory, which is faster
	// but cannot be restarted.
	DBFile string
	// DynamicConfig adds --dynamic-config-value settings (key=value), e.g.
	// for fault tests that need other server limits.
	DynamicConfig []string
	// NoSearchAttributes starts the server without agentrun's search
	// attributes, as a `temporal server start-dev` typed by hand does: for
	// the tests of the start-up that adds them (runclient.SetUpSearchAttributes).
	NoSearchAttributes bool
}

// Server is a running dev server and a client connected to it.
type Server struct {
	t       testing.TB
	opts    ServerOptions
	binary  string
	address string
	// sidePorts are the HTTP API's and the metrics' ports: the CLI would pick
	// them from the ephemeral range, where parallel test servers race.
	sidePorts []string
	client    client.Client
	process   *testsuite.DevServer
	output    *TailBuffer
	// shared is the test binary's one server (SharedServer): RunTests stops
	// it, and no test may.
	shared bool
}

// NeedsDevServer skips the test in -short mode, which leaves out the tests
// that start a dev server: a cold start takes seconds on a busy machine.
func NeedsDevServer(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a dev server; runs without -short (make test)")
	}
}

// StartServer starts a dev server on a free port, stops it when the test
// ends, and fails the test if it cannot. A test that needs no options of its
// own takes SharedServer instead, which costs no start.
func StartServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	s := newServer(t, opts)
	if err := s.start(); err != nil {
		t.Fatalf("%v", err)
	}
	t.Cleanup(func() {
		s.client.Close()
		s.Stop()
		if t.Failed() {
			t.Logf("dev server output (tail):\n%s", s.output.String())
		}
	})
	return s
}

// newServer picks the server's addresses; start launches it.
func newServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	s := &Server{t: t, opts: opts, binary: TemporalCLI(t), output: NewTailBuffer(16 << 10)}
	s.address = FreeAddress(t)
	s.sidePorts = []string{"--http-port", portOf(FreeAddress(t)), "--metrics-port", portOf(FreeAddress(t))}
	return s
}

// start launches the server and dials the client tests use.
func (s *Server) start() error {
	if err := s.launch(); err != nil {
		return err
	}
	c, err := temporalclient.Dial(context.Background(), s.Config(), QuietLogger())
	if err != nil {
		_ = s.stop()
		return fmt.Errorf("dial the dev server: %w", err)
	}
	s.client = c
	return nil
}

// Dial is one more client of the server, with what cfg adds to Config (a
// payload codec, metrics, interceptors); it is closed when the test ends.
func (s *Server) Dial(t testing.TB, cfg temporalclient.Config) client.Client {
	t.Helper()
	base := s.Config()
	cfg.Address, cfg.Namespace = base.Address, base.Namespace
	c, err := temporalclient.Dial(context.Background(), cfg, QuietLogger())
	if err != nil {
		t.Fatalf("testkit: dial the dev server at %s: %v", s.address, err)
	}
	t.Cleanup(c.Close)
	return c
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
	if s.shared {
		panic("testkit: the shared dev server is stopped by RunTests, not by a test; a test that stops its server needs StartServer")
	}
	if err := s.stop(); err != nil {
		s.t.Errorf("%v", err)
	}
}

func (s *Server) stop() error {
	if s.process == nil {
		return nil
	}
	err := s.process.Stop()
	s.process = nil
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return fmt.Errorf("stop the dev server at %s: %w", s.address, err)
	}
	return nil
}

// Restart stops the server (if running) and starts it again on the same
// address with the same DB file. Only a server with a DBFile can restart:
// an in-memory one would come back empty.
func (s *Server) Restart() {
	if s.shared {
		panic("testkit: the shared dev server cannot restart; a test that restarts its server needs StartServer with a DBFile")
	}
	s.t.Helper()
	if s.opts.DBFile == "" {
		s.t.Fatalf("testkit: Restart needs ServerOptions.DBFile; an in-memory server loses every workflow")
	}
	s.Stop()
	if err := s.launch(); err != nil {
		s.t.Fatalf("%v", err)
	}
}

func (s *Server) launch() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	attrs := SearchAttributes()
	if s.opts.NoSearchAttributes {
		attrs = temporal.SearchAttributes{}
	}
	process, err := testsuite.StartDevServer(ctx, testsuite.DevServerOptions{
		ExistingPath: s.binary,
		ClientOptions: &client.Options{
			HostPort: s.address,
			Logger:   quietSDKLogger(),
		},
		DBFilename:       s.opts.DBFile,
		LogLevel:         "error",
		SearchAttributes: attrs,
		ExtraArgs:        append(tunedArgs(s.opts), s.sidePorts...),
		Stdout:           s.output,
		Stderr:           s.output,
	})
	if err != nil {
		return fmt.Errorf("start the dev server at %s: %w\n%s", s.address, err, s.output.String())
	}
	// Our own client (made once in start) is the one tests use.
	process.Client().Close()
	s.process = process
	return nil
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

// SearchAttributes are those the workflow and the run client set, as api declares them (the
// values only carry the types): what every server of the tests registers.
func SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(
		api.SearchAttrStatus.ValueSet(""),
		api.SearchAttrConversation.ValueSet(""),
		api.SearchAttrActionIDs.ValueSet(nil),
		api.SearchAttrAgent.ValueSet(""),
	)
}

// tunedArgs lift the dev server's default limits: without them every task
// hand-off waits on a 20/s poll limit, and a test's steps take seconds each.
func tunedArgs(opts ServerOptions) []string {
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
