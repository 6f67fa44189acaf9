package workflows

import (
	"bytes"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// An action proposed while the run already waits publishes the run's action
// IDs (AgentRunActionIds) on its own, so that a decision naming only that
// action finds its run. That visibility write failing costs a warning in the
// worker's log, naming the error, and nothing else: the run goes on and
// every approved action runs once. One that succeeds logs nothing.
func TestAFailedPublishOfAnActionsIDIsLoggedAndStopsNothing(t *testing.T) {
	for name, fail := range map[string]bool{"the write fails": true, "the write succeeds": false} {
		t.Run(name, func(t *testing.T) {
			var logs syncBuffer
			var suite testsuite.WorkflowTestSuite
			suite.SetLogger(sdklog.NewStructuredLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
			pin := &pinTool{}
			r := newPinRun(t, &suite, pin, []api.ToolCall{pinCall("p1", "acme/widgets#1", "one"), pinCall("p2", "acme/widgets#1", "two")})
			published := failActionIDsPublish(r, fail)
			r.at(t, time.Minute, func(actions []api.PendingAction) {
				require.Len(t, actions, 2, "both pins of the turn are proposed at once")
				for _, pa := range actions {
					r.decide(api.ApprovalSignal{ActionID: pa.ID, Decision: api.DecisionApprove})
				}
			})

			snap := r.runPinner(t, "alice")

			require.Equal(t, int64(1), published.Load(), "the second pin, proposed while the run waited, published the IDs on its own")
			require.Equal(t, api.RunCompleted, snap.Run.Status)
			require.Len(t, pin.effects, 2)
			for key, n := range pin.effects {
				require.Equal(t, 1, n, "once under %s", key)
			}
			if fail {
				require.Contains(t, logs.String(), `msg="upsert AgentRunActionIds failed" error="visibility store unavailable"`)
			} else {
				require.NotContains(t, logs.String(), "upsert AgentRunActionIds failed")
			}
		})
	}
}

// failActionIDsPublish makes r's upserts of the action IDs alone (not with
// the run's status) fail when fail, and counts them.
func failActionIDsPublish(r *customRun, fail bool) *atomic.Int64 {
	n := &atomic.Int64{}
	r.env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{WrapOutbound(
		func(next interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor {
			return &actionIDsPublish{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: next}, n: n, fail: fail}
		})}})
	return n
}

type actionIDsPublish struct {
	interceptor.WorkflowOutboundInterceptorBase
	n    *atomic.Int64
	fail bool
}

func (p *actionIDsPublish) UpsertTypedSearchAttributes(ctx workflow.Context, attrs ...temporal.SearchAttributeUpdate) error {
	if sa := temporal.NewSearchAttributes(attrs...); sa.ContainsKey(api.SearchAttrActionIDs) && !sa.ContainsKey(api.SearchAttrStatus) {
		p.n.Add(1)
		if p.fail {
			return errors.New("visibility store unavailable")
		}
	}
	return p.Next.UpsertTypedSearchAttributes(ctx, attrs...)
}

// syncBuffer is a log sink the workflow's goroutines and the test share.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
