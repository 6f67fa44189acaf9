package workflows

import (
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// A search-attribute upsert is an event and a visibility write: a run
// writes one per status change, none for what its start already set.
func TestARunStartedWithItsSearchAttributesUpsertsOnlyItsStatusChanges(t *testing.T) {
	h := newHarness(t)
	upserts := countUpserts(h)
	// As runclient.Start sets them.
	require.NoError(t, h.env.SetTypedSearchAttributesOnStart(temporal.NewSearchAttributes(
		api.SearchAttrStatus.ValueSet(string(api.RunRunning)), api.SearchAttrConversation.ValueSet(testRunID),
	)))
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, int64(3), upserts.Load(), "waiting, running again, completed")
	require.Equal(t, 1, h.markedComments())
}

func TestARunStartedBareUpsertsItsSearchAttributesFirst(t *testing.T) {
	h := newHarness(t)
	upserts := countUpserts(h)
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, int64(4), upserts.Load(), "running with its conversation, waiting, running again, completed")
}

func countUpserts(h *harness) *atomic.Int64 {
	n := &atomic.Int64{}
	h.env.SetWorkerOptions(worker.Options{Interceptors: []interceptor.WorkerInterceptor{WrapOutbound(
		func(next interceptor.WorkflowOutboundInterceptor) interceptor.WorkflowOutboundInterceptor {
			return &upsertCounter{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: next}, n: n}
		})}})
	return n
}

type upsertCounter struct {
	interceptor.WorkflowOutboundInterceptorBase
	n *atomic.Int64
}

func (u *upsertCounter) UpsertTypedSearchAttributes(ctx workflow.Context, attrs ...temporal.SearchAttributeUpdate) error {
	u.n.Add(1)
	return u.Next.UpsertTypedSearchAttributes(ctx, attrs...)
}
