package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

func TestMaxStepsFailsTheRunWithAClearError(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.MaxSteps = 1
	h.runFailing(in, "reached maxSteps (1)")
	snap := h.snapshot()
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Contains(t, snap.Run.Error, "maxSteps")
	require.Equal(t, api.LabelFailed, snap.Label)
	require.Equal(t, 0, h.markedComments())
}

func TestCancelWhileWaitingPostsNothing(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(string) { h.env.CancelWorkflow() })
	h.run(demoInput())
	require.True(t, temporal.IsCanceledError(h.env.GetWorkflowError()))

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.LabelCancelled, snap.Label)
	require.Equal(t, api.StepExpired, h.commentStep(snap).Status)
	require.Equal(t, "run cancelled by "+api.CancelledByTemporal+": temporal workflow cancel", snap.PendingAction.Reason)
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	requireLegalHistory(t, h.events())
}

func TestInvalidInputFailsWithClearError(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Repo = "not-a-repo"
	h.runFailing(in, `invalid repo "not-a-repo"`)
	require.Equal(t, api.RunFailed, h.snapshot().Run.Status)
}

func TestEveryChangeBumpsVersionAndAppendsAnEvent(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	h.run(demoInput())
	snap := h.snapshot()
	events := h.events()
	require.Equal(t, int64(len(events)), snap.Run.Version)
	require.Equal(t, events[len(events)-1].Sequence, snap.Run.LastCommittedSequence)
	since := h.eventsSince(t, 5)
	require.Equal(t, int64(6), since[0].Sequence)
	require.Len(t, since, len(events)-5)
	labels := map[string]bool{}
	for _, e := range events {
		labels[e.Label] = true
	}
	for _, want := range []string{api.LabelThinking, api.LabelReadingPR, api.LabelReadingFiles, api.LabelWaitingApproval, api.LabelPosting, api.LabelDone} {
		require.True(t, labels[want], "label %q missing", want)
	}
	for _, st := range snap.Steps {
		require.True(t, st.Status.IsTerminal(), "step %s is %s", st.ID, st.Status)
		require.NotNil(t, st.CompletedAt)
		require.False(t, strings.Contains(string(st.SafeInput), "ghp_"))
	}
}

func (h *harness) eventsSince(t *testing.T, since int64) []api.Event {
	v, err := h.env.QueryWorkflow(api.QueryEvents, since)
	require.NoError(t, err)
	var evs []api.Event
	require.NoError(t, v.Get(&evs))
	return evs
}

// An agent's own step limit applies when the run names none; a run that
// names one keeps it; neither named, the default applies.
func TestAnAgentsStepLimitAppliesWhenTheRunNamesNone(t *testing.T) {
	turns := [][]api.ToolCall{
		{call("r1", "fast_read", `{}`)}, {call("r2", "fast_read", `{}`)}, {call("r3", "fast_read", `{}`)},
	}
	for _, c := range []struct {
		name           string
		agent, run     int
		wantFailedWith string
	}{
		{"the agent's limit", 2, 0, "reached maxSteps (2)"},
		{"the run's own limit", 2, 6, ""},
		{"the default", 0, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newCustomRun(t, tools.Agent{Name: "reader", MaxSteps: c.agent, Tools: []tools.AgentTool{{Name: "fast_read"}}}, &stampTool{effects: map[string]int{}}, turns...)
			r.env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: "reader",
				MaxSteps: c.run, Approvers: []string{"alice"}, InlineConversationBytes: -1})
			require.True(t, r.env.IsWorkflowCompleted())
			snap := r.snapshot(t)
			if c.wantFailedWith != "" {
				require.Equal(t, api.RunFailed, snap.Run.Status)
				require.Contains(t, snap.Run.Error, c.wantFailedWith)
				return
			}
			require.Equal(t, api.RunCompleted, snap.Run.Status, snap.Run.Error)
		})
	}
}
