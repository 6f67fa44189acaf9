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
	replayer.RegisterWorkflowWithOptions(AgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
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

// A run started before the engine batch (its history has no
// engine-2026-12b marker) completes the old way on today's code: its post
// carries the approved text itself, as the worker it started on expects.
func TestARunFromBeforeTheEngineBatchStillSendsTheApprovedText(t *testing.T) {
	in, body := createInput(t, replayToolInputs(t, "v5/happy.json"))

	require.Equal(t, body, in.Approved)
	require.Empty(t, in.ApprovedSHA256)
}

// On the engine batch the approved text is recorded once (the model's
// answer holds it in the arguments); the post names it by its digest.
func TestARunOnTheEngineBatchNamesTheApprovedTextByItsDigest(t *testing.T) {
	for _, history := range []string{"v6/happy.json"} {
		in, body := createInput(t, replayToolInputs(t, history))

		require.Empty(t, in.Approved, history)
		require.Equal(t, api.PreviewDigest(body), in.ApprovedSHA256, history)
	}
}

// Every event of a run is written and read again by the server, and every
// version marker brings the SDK's upsert of TemporalChangeVersion (a
// visibility write), so a run on the newest batch records that batch alone:
// its marker implies every older one. A new run records perfChangeID, which
// takes issue 12's two batches.
func TestARunOnTheNewestBatchRecordsOneVersionMarker(t *testing.T) {
	for dir, changeID := range map[string]string{"v5": registryChangeID, "v6": perfChangeID} {
		files, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
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
			require.Equal(t, []string{changeID}, changeIDs, f)
		}
	}
}
