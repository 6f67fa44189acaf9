package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// TestACancelledRunSettlesEachOpenStepByWhatItWasDoing drives endCancelled
// on a run whose loop never started (no cancel recorded, no steady
// context): whatever was left open is closed by what it was doing, and an
// action that may have been sent is never called not done.
func TestACancelledRunSettlesEachOpenStepByWhatItWasDoing(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	type ended struct {
		Result  api.RunResult
		Steps   []api.AgentStep
		Actions []api.PendingAction
		Run     api.Run
	}
	env.ExecuteWorkflow(func(ctx workflow.Context) (ended, error) {
		w := &agentRun{}
		w.Run.Status = api.RunWaitingForUser
		w.Steps = []*api.AgentStep{
			{ID: "step-1", Type: api.StepToolCall, ToolName: api.ToolCreateIssueComment, Status: api.StepPending},
			{ID: "step-2", Type: api.StepToolCall, ToolName: api.ToolCreateIssueComment, Status: api.StepWaitingForApproval},
			{ID: "step-3", Type: api.StepToolCall, ToolName: api.ToolCreateIssueComment, Status: api.StepRunning, OperationKey: "run-1:3"},
			{ID: "step-4", Type: api.StepToolCall, ToolName: api.ToolGetPullRequest, Status: api.StepRunning},
			{ID: "step-5", Type: api.StepToolCall, ToolName: api.ToolGetPullRequest, Status: api.StepSucceeded},
		}
		w.Actions = []*api.PendingAction{{ID: "act-2", StepID: "step-2", State: api.ActionWaiting}}
		res, err := w.endCancelled(ctx)
		out := ended{Result: res, Run: w.Run}
		for _, st := range w.Steps {
			out.Steps = append(out.Steps, *st)
		}
		for _, pa := range w.Actions {
			out.Actions = append(out.Actions, *pa)
		}
		return out, err
	})
	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "no Temporal cancellation: the run ends without a cancelled error")
	var got ended
	require.NoError(t, env.GetWorkflowResult(&got))

	const why = "run cancelled by " + api.CancelledByTemporal + ": the workflow was cancelled"
	require.Equal(t, api.RunCancelled, got.Run.Status)
	require.Equal(t, api.RunCancelled, got.Result.Status)
	require.Equal(t, []api.StepStatus{api.StepSkipped, api.StepExpired, api.StepOutcomeUnknown, api.StepFailed, api.StepSucceeded},
		[]api.StepStatus{got.Steps[0].Status, got.Steps[1].Status, got.Steps[2].Status, got.Steps[3].Status, got.Steps[4].Status})
	require.Equal(t, "run cancelled while the action was in flight", got.Steps[2].Error)
	require.Equal(t, why, got.Steps[3].Error)
	require.Equal(t, api.ActionExpired, got.Actions[0].State)
	require.Equal(t, why, got.Actions[0].Reason)
	require.Contains(t, got.Result.Error, why)
	require.Contains(t, got.Result.Error, "step-3's outcome is unknown")
	require.NotContains(t, got.Result.Error, "step-4's outcome")
}
