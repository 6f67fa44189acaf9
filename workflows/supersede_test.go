package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

var newHead = strings.Repeat("c", 40)

func (h *harness) supersede(sig api.SupersedeSignal) {
	h.env.SignalWorkflow(api.SignalSupersede, sig)
}

func TestSupersedeWhileWaitingExpiresTheActionPostsNothingAndCompletesNamingTheNextRun(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(string) { h.supersede(api.SupersedeSignal{Head: newHead, By: "run-next"}) })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.LabelSuperseded, snap.Label)
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	require.Equal(t, "superseded by "+newHead, snap.PendingAction.Reason)
	require.Equal(t, api.StepExpired, h.commentStep(snap).Status)
	require.Empty(t, snap.Outcome.Posted)
	var res api.RunResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	require.Equal(t, api.RunCompleted, res.Status)
	require.Contains(t, res.Answer, "run run-next took over")
	requireLegalHistory(t, h.events())
}

func TestClosingThePullRequestExpiresTheWaitingActionAsClosed(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(string) {
		h.supersede(api.SupersedeSignal{Closed: true})
		h.supersede(api.SupersedeSignal{Closed: true}) // a redelivery changes nothing more
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	require.Equal(t, "pull request closed", snap.PendingAction.Reason)
	require.Equal(t, 0, h.markedComments())
	requireLegalHistory(t, h.events())
}

// Superseding never interrupts a post: an action in flight (here its answer
// lost) finishes and reconciles to one comment, and the run completes Done.
func TestSupersedeWhileThePostIsInFlightLetsItFinishAndReconcileToOneComment(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.whenActivityStarts(".create-1", func() { h.supersede(api.SupersedeSignal{Head: newHead}) })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.LabelDone, snap.Label, "what was posted before the new head is the run's outcome")
	require.Equal(t, api.StepSucceeded, h.commentStep(snap).Status)
	require.Len(t, snap.Outcome.Posted, 1)
	// The review it posted is stale all the same: the run marks it, once.
	posted := h.comment(snap.Outcome.Posted[0].CommentID)
	require.Equal(t, 1, posted.Edits)
	first, _, _ := strings.Cut(posted.Body, "\n")
	require.True(t, strings.HasSuffix(first, "~~ (superseded by "+newHead+")"), first)
	require.Len(t, snap.Outcome.SupersededReviews, 1)
	require.Equal(t, api.SupersedeEditEdited, snap.Outcome.SupersededReviews[0].State)
	require.Equal(t, testRunID, snap.Outcome.SupersededReviews[0].Review.Run)
	requireLegalHistory(t, h.events())
}

func TestAMalformedSupersedeIsRecordedAndChangesNothing(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(actionID string) {
		h.supersede(api.SupersedeSignal{Head: "not-a-sha"})
		h.decide(actionID, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 1, h.markedComments())
	require.Equal(t, api.LabelDone, h.snapshot().Label)
}
