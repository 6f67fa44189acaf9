package telemetry_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The two runs of this package, each with its own worker, queue and
// instruments, share the binary's dev server.
func TestMain(m *testing.M) { testkit.RunTests(m) }

func TestOneApprovedRunIsOneTraceFromStartThroughActivitiesAndTheSignal(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tracing, err := telemetry.NewTracingWith("agentrun-test", sdktrace.WithSyncer(spans))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, tracing.Shutdown(context.Background())) })
	s := testkit.StartStack(t, testkit.StackOptions{SharedServer: true, Interceptors: tracing.Interceptors()})
	tracing.Join(s.Client(), temporalclient.DefaultNamespace)

	run := s.StartReview(t, s.TaskQueue)
	action := s.WaitForApproval(t, run.GetID())
	s.Approve(t, run.GetID(), action.ID)
	require.Equal(t, api.RunCompleted, s.WaitForResult(t, run).Status)

	byName := map[string][]trace.TraceID{}
	for _, sp := range spans.GetSpans() {
		byName[sp.Name] = append(byName[sp.Name], sp.SpanContext.TraceID())
	}
	runTrace := byName["StartWorkflow:"+api.WorkflowName]
	require.Len(t, runTrace, 1, "spans: %v", byName)
	for _, name := range []string{
		"RunWorkflow:" + api.WorkflowName,
		"SignalWorkflow:" + api.SignalApproval, "HandleSignal:" + api.SignalApproval,
		"StartActivity:ModelNext", "RunActivity:ModelNext",
		"RunActivity:ExecuteTool", "RunActivity:CheckRepoPermission",
	} {
		require.NotEmpty(t, byName[name], "no %s span; spans: %v", name, byName)
		for _, id := range byName[name] {
			require.Equal(t, runTrace[0], id, "%s is in another trace", name)
		}
	}
}
