package telemetry

import (
	"context"
	"sync/atomic"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	temporalotel "go.temporal.io/sdk/contrib/opentelemetry"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
)

// tracerHeader is where the SDK's tracing interceptor writes a span into a
// workflow's headers (contrib/opentelemetry's default).
const tracerHeader = "_tracer-data"

// signalTraceJoiner puts a signal sent without a span of its own (a
// person's decision, through the approval server or the starter) into the
// trace of the run it goes to, so that a run's trace holds its start, its
// activities and the decisions on it. It reads the span from the run's first
// history event: one extra call per signal, made only when tracing is on.
type signalTraceJoiner struct {
	interceptor.ClientInterceptorBase
	client atomic.Pointer[joinedClient]
}

type joinedClient struct {
	client.Client
	namespace string
}

// Join lets signals join their run's trace, reading histories of namespace
// through c, the process's one client, once Dial has made it.
func (t *Tracing) Join(c client.Client, namespace string) {
	if t != nil {
		t.joiner.client.Store(&joinedClient{Client: c, namespace: namespace})
	}
}

func (j *signalTraceJoiner) InterceptClient(next interceptor.ClientOutboundInterceptor) interceptor.ClientOutboundInterceptor {
	return &signalJoinOutbound{ClientOutboundInterceptorBase: interceptor.ClientOutboundInterceptorBase{Next: next}, root: j}
}

type signalJoinOutbound struct {
	interceptor.ClientOutboundInterceptorBase
	root *signalTraceJoiner
}

func (o *signalJoinOutbound) SignalWorkflow(ctx context.Context, in *interceptor.ClientSignalWorkflowInput) error {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		ctx = o.root.runTrace(ctx, in.WorkflowID, in.RunID)
	}
	return o.Next.SignalWorkflow(ctx, in)
}

// runTrace is ctx with the span the run was started under as its remote
// parent; ctx itself if the run has none or its history cannot be read (the
// signal then starts a trace of its own, as it would without the joiner).
func (j *signalTraceJoiner) runTrace(ctx context.Context, workflowID, runID string) context.Context {
	c := j.client.Load()
	if c == nil {
		return ctx
	}
	resp, err := c.WorkflowService().GetWorkflowExecutionHistory(ctx, &workflowservice.GetWorkflowExecutionHistoryRequest{
		Namespace:              c.namespace,
		Execution:              &commonpb.WorkflowExecution{WorkflowId: workflowID, RunId: runID},
		MaximumPageSize:        1,
		HistoryEventFilterType: enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT,
	})
	if err != nil || len(resp.GetHistory().GetEvents()) == 0 {
		return ctx
	}
	started := resp.GetHistory().GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
	payload := started.GetHeader().GetFields()[tracerHeader]
	if payload == nil {
		return ctx
	}
	var carrier map[string]string
	if err := converter.GetDefaultDataConverter().FromPayload(payload, &carrier); err != nil {
		return ctx
	}
	return temporalotel.DefaultTextMapPropagator.Extract(ctx, propagation.MapCarrier(carrier))
}
