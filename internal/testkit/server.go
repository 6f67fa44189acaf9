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
// ends, and fails the test if it cannot.
func StartServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	s := &Server{t: t, opts: opts, binary: TemporalCLI(t), output: NewTailBuffer(16 << 10)}
	s.address = FreeAddress(t)
	s.sidePorts = []string{"--http-port", portOf(FreeAddress(t)), "--metrics-port", portOf(FreeAddress(t))}
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
		s.t.Fatalf("testkit: Restart needs ServerOptions.DBFile; an in-memory server loses every workflow")
	}
	s.Stop()
	s.launch()
}

func (s *Server) launch() {
	s.t.Helper()
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
		s.t.Fatalf("start the dev server at %s: %v\n%s", s.address, err, s.output.String())
	}
	// Our own client (made once in Start) is the one tests use.
	process.Client().Close()
	s.process = process
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
