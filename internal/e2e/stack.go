package e2e

import (
	"fmt"
	"testing"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/internal/testkit"
)

// Stack is what one test runs against: a real Temporal dev server, the
// sandbox process, and the worker processes the test starts.
type Stack struct {
	Bins    Binaries
	Server  *testkit.Server
	Sandbox *Sandbox
	// Queue is the task queue the stack's workers poll unless told otherwise.
	Queue   string
	workers int
}

// NewStack starts a dev server (in memory unless opts.DBFile is set) and the sandbox.
func NewStack(t testing.TB, bins Binaries, opts testkit.ServerOptions) *Stack {
	t.Helper()
	return &Stack{
		Bins:    bins,
		Server:  testkit.StartServer(t, opts),
		Sandbox: StartSandbox(t, bins.Sandbox),
		Queue:   "agent-runs-e2e",
	}
}

// Client is the test's client of the dev server.
func (s *Stack) Client() client.Client { return s.Server.Client() }

// StartWorker starts an offline-model worker on the stack's queue; it is
// killed when t ends.
func (s *Stack) StartWorker(t testing.TB) *Process {
	t.Helper()
	return s.StartWorkerOn(t, s.Queue, nil)
}

// StartWorkerOn starts a worker on queue; modelEnv replaces the offline model.
func (s *Stack) StartWorkerOn(t testing.TB, queue string, modelEnv map[string]string) *Process {
	t.Helper()
	s.workers++
	return StartWorker(t, s.Bins.Worker, s.Client(), WorkerSpec{
		Name:            fmt.Sprintf("worker-%d", s.workers),
		TemporalAddress: s.Server.Address(),
		TaskQueue:       queue,
		GitHubAPIURL:    s.Sandbox.APIURL(),
		ModelEnv:        modelEnv,
	})
}

// StarterEnv is the environment the starter CLI needs to reach the stack.
func (s *Stack) StarterEnv() map[string]string {
	return map[string]string{
		"TEMPORAL_ADDRESS": s.Server.Address(),
		"AGENT_TASK_QUEUE": s.Queue,
		"USER":             "carol",
	}
}
