package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// TestAnAttemptIsSentOnlyForTheExactCallApproved drives attemptCreate on a
// call that asks: it is sent only when its action is approved with the
// call's own argsHash; otherwise the step fails, refused, and no request
// is made.
func TestAnAttemptIsSentOnlyForTheExactCallApproved(t *testing.T) {
	const approvedHash, otherHash = "hash-approved", "hash-other"
	for name, tc := range map[string]struct {
		action *api.PendingAction
		hash   string
		sent   bool
	}{
		"no action":               {nil, approvedHash, false},
		"an action still waiting": {&api.PendingAction{State: api.ActionWaiting, ArgsHash: approvedHash}, approvedHash, false},
		"a rejected action":       {&api.PendingAction{State: api.ActionRejected, ArgsHash: approvedHash}, approvedHash, false},
		"approved, another call":  {&api.PendingAction{State: api.ActionApproved, ArgsHash: approvedHash}, otherHash, false},
		"approved, the same call": {&api.PendingAction{State: api.ActionApproved, ArgsHash: approvedHash}, approvedHash, true},
	} {
		t.Run(name, func(t *testing.T) {
			var suite testsuite.WorkflowTestSuite
			env := suite.NewTestWorkflowEnvironment()
			sent := 0
			env.RegisterActivityWithOptions(func(context.Context, api.ToolInput) (api.ToolOutput, error) {
				sent++
				return api.ToolOutput{ExternalID: "2000000001"}, nil
			}, activity.RegisterOptions{Name: api.ActivityExecuteTool})
			env.ExecuteWorkflow(func(ctx workflow.Context) (api.AgentStep, error) {
				w := &agentRun{}
				w.in.ToolTimeout = 5 * time.Second
				w.Run = api.Run{ID: "run-1", Status: api.RunRunning}
				st := &api.AgentStep{ID: "step-5", Sequence: 5, Type: api.StepToolCall, ToolName: api.ToolCreateIssueComment,
					Status: api.StepRunning, OperationKey: "run-1:5", Attempt: 1}
				w.Steps = []*api.AgentStep{st}
				if tc.action != nil {
					pa := *tc.action
					pa.ID, pa.StepID = "act-1", st.ID
					w.Actions = []*api.PendingAction{&pa}
				}
				err := w.attemptCreate(ctx, st, tools.Checked{Ask: true, ArgsHash: tc.hash, Call: tools.Call{Args: []byte(`{"body":"x"}`)}})
				return *st, err
			})
			require.NoError(t, env.GetWorkflowError())
			var st api.AgentStep
			require.NoError(t, env.GetWorkflowResult(&st))
			if tc.sent {
				require.Equal(t, 1, sent)
				require.Equal(t, api.StepSucceeded, st.Status)
				require.Equal(t, "2000000001", st.ExternalResourceID)
				return
			}
			require.Zero(t, sent, "nothing is sent")
			require.Equal(t, api.StepFailed, st.Status)
			require.Equal(t, "refused: the action to run is not the one approved", st.Error)
		})
	}
}

func TestAMalformedResolveSignalIsRecordedAndResolvesNothing(t *testing.T) {
	h := newHarness(t)
	h.cannotTell()
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		h.env.SignalWorkflow(api.SignalResolve, "retry")
		h.env.RegisterDelayedCallback(func() {
			snap := h.snapshot()
			require.Equal(t, st.ID, snap.AwaitingResolve, "still waiting for an operator")
			require.Equal(t, api.StepOutcomeUnknown, h.commentStep(snap).Status)
			h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveAbandon, By: "ops"})
		}, time.Minute)
	}, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	ignored := ignoredDetails(h.events())
	require.Len(t, ignored, 1)
	require.True(t, strings.HasPrefix(ignored[0], "malformed resolve signal: "), ignored[0])
	st := h.commentStep(h.snapshot())
	require.Equal(t, api.StepFailed, st.Status)
	require.True(t, strings.HasPrefix(st.Error, api.AbandonedBy+"ops"), st.Error)
}

// A run waiting for an operator continues as new when its history asks,
// and the new generation waits for the same operator decision.
func TestARunWaitingForAnOperatorContinuesAsNewStillWaiting(t *testing.T) {
	h := newHarness(t)
	h.cannotTell()
	in := demoInput()
	in.HistoryThreshold = 500
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		require.Equal(t, st.ID, h.snapshot().AwaitingResolve)
		h.env.SetCurrentHistoryLength(in.HistoryThreshold)
		// Any event wakes the wait: here, a resolve of a step that is not waiting.
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: "step-99", Decision: api.ResolveAbandon, By: "ops"})
	}, time.Hour)
	h.run(in)
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, h.env.GetWorkflowError(), &can)
	var next api.RunInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.NotNil(t, next.Checkpoint)
	var carried *api.AgentStep
	for _, st := range next.Checkpoint.Steps {
		if st.ToolName == api.ToolCreateIssueComment && st.Type == api.StepToolCall {
			carried = st
		}
	}
	require.NotNil(t, carried)
	require.Equal(t, api.StepOutcomeUnknown, carried.Status, "carried still in doubt, never sent again")
	require.Equal(t, 1, carried.Attempt)
	require.Equal(t, carried.ID, next.Checkpoint.AwaitingResolve, "the new generation waits for the operator")
}
