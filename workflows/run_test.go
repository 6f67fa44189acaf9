package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
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
