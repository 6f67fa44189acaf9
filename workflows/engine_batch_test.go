package workflows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// toolInputs records the ToolInput of every ExecuteTool and ReconcileTool
// the workflow schedules, replay included.
type toolInputs struct {
	interceptor.WorkerInterceptorBase
	got *[]api.ToolInput
}

func (r *toolInputs) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &toolInputsInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, got: r.got}
}

type toolInputsInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	got *[]api.ToolInput
}

func (r *toolInputsInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return r.Next.Init(&toolInputsOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, got: r.got})
}

type toolInputsOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	got *[]api.ToolInput
}

func (r *toolInputsOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if in, ok := args[0].(api.ToolInput); ok && (activityType == api.ActivityExecuteTool || activityType == api.ActivityReconcileTool) {
		*r.got = append(*r.got, in)
	}
	return r.Next.ExecuteActivity(ctx, activityType, args...)
}

// replayToolInputs replays a recorded history on today's code and returns
// the tool inputs that code scheduled.
func replayToolInputs(t *testing.T, rel string) []api.ToolInput {
	t.Helper()
	var got []api.ToolInput
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{
		Interceptors: []interceptor.WorkerInterceptor{&toolInputs{got: &got}},
	})
	require.NoError(t, err)
	replayer.RegisterWorkflowWithOptions(builtin.AgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
	f, err := os.Open(filepath.Join("testdata", rel))
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, h, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: "record-happy"},
	}))
	return got
}

func createInput(t *testing.T, inputs []api.ToolInput) (api.ToolInput, string) {
	t.Helper()
	for _, in := range inputs {
		if in.Tool == api.ToolCreateIssueComment {
			var args struct {
				Body string `json:"body"`
			}
			require.NoError(t, json.Unmarshal(in.Args, &args))
			require.NotEmpty(t, args.Body)
			return in, args.Body
		}
	}
	t.Fatalf("no %s among %d tool inputs", api.ToolCreateIssueComment, len(inputs))
	return api.ToolInput{}, ""
}

// The approved text is recorded once (the model's answer holds it in the
// arguments); the post names it by its digest.
func TestARunNamesTheApprovedTextByItsDigest(t *testing.T) {
	in, body := createInput(t, replayToolInputs(t, "replay/happy.json"))

	require.Empty(t, in.Approved)
	require.Equal(t, api.PreviewDigest(body), in.ApprovedSHA256)
}

// A run is pinned to the build that started it, so the workflow calls no
// GetVersion (docs/architecture.md): every version marker would bring an
// event and the SDK's upsert of TemporalChangeVersion, a visibility write.
func TestARecordedRunRecordsNoVersionMarker(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "replay", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		h, err := os.Open(f)
		require.NoError(t, err)
		history, err := client.HistoryFromJSON(h, client.HistoryJSONOptions{})
		h.Close()
		require.NoError(t, err)
		var changeIDs []string
		for _, ev := range history.Events {
			m := ev.GetMarkerRecordedEventAttributes()
			if m.GetMarkerName() != "Version" {
				continue
			}
			var id string
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["change-id"], &id))
			changeIDs = append(changeIDs, id)
		}
		require.Empty(t, changeIDs, f)
	}
}
