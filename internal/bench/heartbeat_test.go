package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// looksInput is one round of the heartbeat bench: Looks live looks at
// once, each kept alive by its heartbeats under HeartbeatTimeout.
type looksInput struct {
	Looks            int
	HeartbeatTimeout time.Duration
	ToolTimeout      time.Duration
}

// looksWorkflow runs the round's looks, the real ReconcileTool of the
// comment tool with a look's timeouts as a run sets them but one
// attempt, and counts those that timed out on their heartbeat: on a worker
// that lives, each is a look the run would have lost for nothing.
func looksWorkflow(ctx workflow.Context, in looksInput) (int, error) {
	futures := make([]workflow.Future, in.Looks)
	for i := range futures {
		key := fmt.Sprintf("bench-heartbeat:%d", i)
		opts := workflow.ActivityOptions{StartToCloseTimeout: in.ToolTimeout, HeartbeatTimeout: in.HeartbeatTimeout,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}}
		actx := workflow.WithActivityOptions(ctx, opts)
		target := api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}
		futures[i] = workflow.ExecuteActivity(actx, api.ActivityReconcileTool,
			api.NewToolInput(api.ToolCreateIssueComment, []byte(`{"body":"bench"}`), target, key, "bench"))
	}
	timedOut := 0
	for _, f := range futures {
		err := f.Get(ctx, nil)
		var te *temporal.TimeoutError
		if errors.As(err, &te) && te.TimeoutType() == enumspb.TIMEOUT_TYPE_HEARTBEAT {
			timedOut++
		}
	}
	return timedOut, nil
}

// TestBenchHeartbeatTimeoutsUnderLoad counts the live looks whose own
// heartbeats fail to keep them alive on a loaded worker: each look waits
// lookDelay on the sandbox's listing while the worker's process runs
// eight busy goroutines per core, for the heartbeat timeout before this
// one (1 s) and this one. It prints the figures
// (docs/operations.md quotes them) and asserts none: timings are the
// machine's. It runs with AGENTRUN_BENCH set.
func TestBenchHeartbeatTimeoutsUnderLoad(t *testing.T) {
	if os.Getenv("AGENTRUN_BENCH") == "" {
		t.Skip("set AGENTRUN_BENCH to measure heartbeat timeouts under load")
	}
	const (
		lookDelay      = 3 * time.Second
		looks          = 100
		rounds         = 5
		burnersPerCore = 8
	)
	s := testkit.StartServer(t, testkit.ServerOptions{})
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeDelay, DelayMs: int(lookDelay / time.Millisecond), Count: 1 << 20}))
	_, gh := testkit.ServeSandbox(t, sb)
	queue := "bench-heartbeat"
	// The throttle the worker main sets (internal/agentworker): the SDK
	// sends a heartbeat at most every min(0.8 × the timeout, this).
	w := worker.New(s.Client(), queue, worker.Options{MaxHeartbeatThrottleInterval: activities.ModelWritingInterval})
	w.RegisterWorkflowWithOptions(looksWorkflow, workflow.RegisterOptions{Name: "BenchLooks"})
	w.RegisterActivity(testkit.BuiltinActivities(github.NewAccess(gh, nil, sb.BotLogin())))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	ctx, stop := context.WithCancel(context.Background())
	var burners sync.WaitGroup
	for range burnersPerCore * runtime.NumCPU() {
		burners.Add(1)
		go func() {
			defer burners.Done()
			for n := 0; ctx.Err() == nil; n++ {
				_ = strconv.Itoa(n) // allocates, so the collector works too
			}
		}()
	}
	t.Cleanup(func() { stop(); burners.Wait() })

	for _, timeout := range []time.Duration{time.Second, api.ActionHeartbeatTimeout} {
		lost := 0
		for r := range rounds {
			run, err := s.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{
				ID: fmt.Sprintf("%s-%s-%d", queue, timeout, r), TaskQueue: queue,
			}, "BenchLooks", looksInput{Looks: looks, HeartbeatTimeout: timeout, ToolTimeout: api.DefaultToolTimeout})
			require.NoError(t, err)
			var n int
			require.NoError(t, run.Get(ctx, &n))
			lost += n
		}
		t.Logf("heartbeat timeout %s (interval %s): %d of %d live looks of %s timed out on a worker with %d busy goroutines on %d cores",
			timeout, api.ActionHeartbeatInterval, lost, rounds*looks, lookDelay, burnersPerCore*runtime.NumCPU(), runtime.NumCPU())
	}
}
