package prodtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/e2e"
	"github.com/agentrun/agentrun/internal/prodstack"
)

const (
	// toolTimeout is one GitHub call's start-to-close: short, so that a call
	// lost with a killed worker times out quickly.
	toolTimeout = 3 * time.Second
	// runTimeout bounds how long one run may take to settle under faults.
	runTimeout = 2 * time.Minute
	// heldAnswerMs holds a sandbox answer far longer than any test waits.
	heldAnswerMs = 120000
)

// stack is the cluster, the sandbox process and the worker processes a
// scenario starts, each worker connected through the cluster's ClientEnv.
type stack struct {
	cluster *prodstack.Cluster
	sandbox *e2e.Sandbox
	bins    e2e.Binaries
	workers int
}

func newStack(t *testing.T) *stack {
	t.Helper()
	cluster := prodstack.Start(t)
	bins := builder.Binaries(t)
	return &stack{cluster: cluster, sandbox: e2e.StartSandbox(t, bins.Sandbox), bins: bins}
}

func (s *stack) client() client.Client { return s.cluster.Client() }

// startWorker starts a worker process on queue; it is killed when t ends.
func (s *stack) startWorker(t *testing.T, queue string) *e2e.Process {
	t.Helper()
	s.workers++
	return e2e.StartWorker(t, s.bins.Worker, s.client(), e2e.WorkerSpec{
		Name:            fmt.Sprintf("worker-%d", s.workers),
		TemporalAddress: s.cluster.Address(),
		TaskQueue:       queue,
		GitHubAPIURL:    s.sandbox.APIURL(),
		ClientEnv:       s.cluster.ClientEnv(),
	})
}

// runningActivity is the worker process running the run's activity of this
// type: the one to kill. Temporal names the worker by its identity, which
// the SDK starts with the process ID.
// runningActivity is the worker running the action's attempt of runID (an
// activity the run named "<step>.create-<attempt>", api.StepActivityID).
func runningActivity(t *testing.T, c client.Client, runID string, workers ...*e2e.Process) *e2e.Process {
	t.Helper()
	const activityType = api.ActivityExecuteTool
	return e2e.Eventually(t, runTimeout, "the action's attempt of "+runID+" to be started by a worker", func() (*e2e.Process, bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		desc, err := c.DescribeWorkflowExecution(ctx, runID, "")
		if err != nil {
			return nil, false, err.Error()
		}
		for _, a := range desc.GetPendingActivities() {
			if a.GetActivityType().GetName() != activityType || !strings.Contains(a.GetActivityId(), ".create-") {
				continue
			}
			for _, w := range workers {
				if strings.HasPrefix(a.GetLastWorkerIdentity(), fmt.Sprintf("%d@", w.Pid())) {
					return w, true, ""
				}
			}
			return nil, false, "run by " + a.GetLastWorkerIdentity()
		}
		return nil, false, "no pending " + activityType
	})
}
