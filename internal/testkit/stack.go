package testkit

import (
	"testing"

	"github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/interceptor"

	"github.com/agentrun/agentrun/activities"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// DefaultTaskQueue is the worker's queue when StackOptions leaves it empty.
const DefaultTaskQueue = "testenv"

// StackOptions configures a stack.
type StackOptions struct {
	// SharedServer puts the stack on the test binary's shared dev server
	// (SharedServer) instead of a server of its own: the test then must keep
	// to queues, workflow IDs and deployment names of its own (Unique).
	SharedServer bool
	// TaskQueue is the worker's queue; empty means DefaultTaskQueue, or on
	// the shared server a queue of the test's own.
	TaskQueue string
	// Model is the worker's model; nil means the offline reviewer.
	Model model.Model
	// PayloadCodec encrypts the payloads of the stack's client and workers,
	// as AGENTRUN_PAYLOAD_KEYS does for the mains; nil leaves them plain.
	PayloadCodec *payloadcodec.Codec
	// MetricsHandler and Interceptors instrument the stack's client and so
	// its workers, as internal/telemetry does for the mains; nil means none.
	MetricsHandler client.MetricsHandler
	Interceptors   []interceptor.ClientInterceptor
	// Fixture is the sandbox's GitHub; nil means ghsandbox.DefaultFixture.
	Fixture *ghsandbox.Fixture
}

// Stack is a running dev server, sandbox and worker, all stopped when the
// test that started them ends (but the shared server, which RunTests stops).
type Stack struct {
	// GitHubURL is the sandbox's API root, as GITHUB_API_URL takes it.
	GitHubURL string
	// TaskQueue is the worker's queue.
	TaskQueue string

	server  *Server
	client  client.Client
	sandbox *ghsandbox.Server
	github  *github.Client
}

// StartStack starts a dev server (or takes the shared one), the sandbox with
// the default fixture and a worker, and fails the test if any part cannot
// start.
func StartStack(t testing.TB, opts StackOptions) *Stack {
	t.Helper()
	var server *Server
	switch {
	case opts.SharedServer:
		server = SharedServer(t)
		if opts.TaskQueue == "" {
			opts.TaskQueue = Unique(t, DefaultTaskQueue)
		}
	default:
		server = StartServer(t, ServerOptions{})
		if opts.TaskQueue == "" {
			opts.TaskQueue = DefaultTaskQueue
		}
	}
	if opts.Model == nil {
		opts.Model = offline.NewReviewer()
	}
	s := &Stack{TaskQueue: opts.TaskQueue, server: server}
	s.client = s.server.Client()
	if opts.PayloadCodec != nil || opts.MetricsHandler != nil || len(opts.Interceptors) > 0 {
		s.client = s.server.Dial(t, temporalclient.Config{
			Codec: opts.PayloadCodec, MetricsHandler: opts.MetricsHandler, Interceptors: opts.Interceptors,
		})
	}
	fixture := ghsandbox.DefaultFixture()
	if opts.Fixture != nil {
		fixture = *opts.Fixture
	}
	s.sandbox = ghsandbox.New(fixture)
	s.GitHubURL, s.github = ServeSandbox(t, s.sandbox)
	s.StartWorker(t, opts.TaskQueue, opts.Model)
	return s
}

// StartWorker starts one more worker, with the GitHub tools on the sandbox
// and this model, on another queue; it stops when t ends.
func (s *Stack) StartWorker(t testing.TB, taskQueue string, model model.Model) {
	t.Helper()
	startWorker(t, s.Client(), taskQueue, s.Activities(model))
}

// Activities are what the stack's workers run: the GitHub tools on the
// sandbox, as its bot, and model (nil means the offline reviewer). Tests that
// need a worker of their own (other options, stopped on cue) register these.
func (s *Stack) Activities(model model.Model) *activities.Activities {
	if model == nil {
		model = offline.NewReviewer()
	}
	// The worker main resolves its login once at start; so does the stack,
	// or every comment call would pay a GET /user of its own.
	return &activities.Activities{GitHub: ghapi.NewAccess(s.github, nil, s.sandbox.BotLogin()), Model: model}
}

// Client is the stack's client of the dev server, with StackOptions.PayloadCodec.
func (s *Stack) Client() client.Client { return s.client }

// PlainClient is a client without the payload codec: what a reader of the
// server's history without the keys sees.
func (s *Stack) PlainClient() client.Client { return s.server.Client() }

// TemporalAddress is the dev server's host:port, as TEMPORAL_ADDRESS takes it.
func (s *Stack) TemporalAddress() string { return s.server.Address() }

// Sandbox is the fake GitHub the worker's tools call.
func (s *Stack) Sandbox() *ghsandbox.Server { return s.sandbox }
