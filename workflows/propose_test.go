package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// The approvals of a turn's actions are asked together, but only for the
// calls that are actions that ask and pass their checks: a call the run
// refuses is never shown to a person as something to approve.
func TestATurnAsksForItsActionsTogetherAndNeverForACallItRefuses(t *testing.T) {
	stamp := &stampTool{effects: map[string]int{}}
	agent := tools.Agent{Name: "stamper", Tools: []tools.AgentTool{{Name: "stamp", Ask: true}}}
	r := newCustomRun(t, agent, stamp, []api.ToolCall{
		call("a", "stamp", `{"word":"first"}`),
		call("bad", "stamp", `{"word":""}`),
		call("b", "stamp", `{"word":"second"}`),
	})
	r.env.RegisterDelayedCallback(func() {
		snap := r.snapshot(t)
		require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
		require.Len(t, snap.Actions, 2, "one approval per action that asks, at once")
		var previews []string
		for _, pa := range snap.Actions {
			require.Equal(t, api.ActionWaiting, pa.State)
			previews = append(previews, pa.Preview)
			r.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: pa.ID, ArgsHash: pa.ArgsHash,
				Decision: api.DecisionApprove, Approver: "alice", RequestID: pa.ID})
		}
		require.Equal(t, []string{`stamp {"word":"first"}`, `stamp {"word":"second"}`}, previews)
	}, time.Minute)
	snap := r.run(t, "stamper")
	require.NoError(t, r.env.GetWorkflowError())

	require.Len(t, stamp.effects, 2, "each approved action once")
	var refused *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].CallID == "bad" {
			refused = &snap.Steps[i]
		}
	}
	require.NotNil(t, refused)
	require.Equal(t, api.StepFailed, refused.Status)
	require.True(t, strings.Contains(refused.Error, "invalid arguments for stamp"), refused.Error)
	require.Empty(t, refused.OperationKey, "a refused call never gets an operationKey")
	require.Len(t, snap.Actions, 2)
}

// A run whose input lifted the agent's gate asks no one, and its step says
// which rule let the action run unasked, not the tool's gate.
func TestARunWhoseGateWasLiftedPostsUnaskedAndItsStepNamesTheRule(t *testing.T) {
	const rule = "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post"
	h := newHarness(t)
	in := demoInput()
	in.PostsWithoutAsking = rule
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Empty(t, snap.Actions, "nobody was asked")
	require.Equal(t, rule, snap.Run.PostsWithoutAsking)
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	unasked := eventsWith(h.events(), func(e api.Event) bool {
		return e.StepID == st.ID && e.Status == string(api.StepRunning) && strings.HasPrefix(e.Detail, "runs without approval")
	})
	require.Len(t, unasked, 1)
	require.Equal(t, "runs without approval ("+rule+")", unasked[0].Detail)
}
