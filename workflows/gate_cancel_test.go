package workflows

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// A cancel never turns an attempt that may have landed into "not done":
// a cancelled run sends nothing more, but it looks for its last attempt's
// effect until that attempt can no longer land (the gate), and ends the
// step failed only when a look made after then found nothing. A look that
// cannot tell leaves the step in doubt, whatever an operator ordered.

// An operator's retry is held while the first attempt may land, every look
// is refused, and the requester cancels; the first attempt's comment lands
// inside the window, unseen. The step stays in doubt: the retry is not
// sent, and nothing says the comment was not posted.
func TestACancelOfAHeldRetryWhoseLooksCannotTellLeavesTheStepInDoubt(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 502})
	// The create lists comments first (let through); every look is refused.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: ghsandbox.ModeStatus, Status: 403, After: 1, Count: 1000})
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveRetry, By: "ops"})
	}, retryTakenAt)
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "stop now", "c1") }, retryTakenAt+2*time.Second)
	h.landTheFirstAttemptAt(retryTakenAt + 10*time.Second)
	h.run(gateInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "the held retry was never sent")
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	h.requireLeftInDoubt(t, snap, st)
	require.Contains(t, st.Error, "the retry ordered by ops is not sent: run cancelled by carol: stop now")
	requireLegalHistory(t, h.events())
}

// A retry and a cancel recorded together (while no worker was up), applied
// once the window has closed: the look still cannot tell, so the step
// stays in doubt rather than "not tried again".
func TestARetryAndACancelTogetherOnALookThatCannotTellLeaveTheStepInDoubt(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.cannotTell()
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveRetry, By: "ops"})
		h.cancelAs("carol", "stop now", "c1")
	}, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments(), "the first attempt made the comment; nobody saw it")
	require.Equal(t, 1, log.attemptCount(createActivity), "the retry was never sent")
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	h.requireLeftInDoubt(t, snap, h.commentStep(snap))
	requireLegalHistory(t, h.events())
}

// requireLeftInDoubt checks that st ended in doubt in a cancelled run:
// outcome_unknown, named by the run's end and carried to a follow-up.
func (h *harness) requireLeftInDoubt(t *testing.T, snap api.RunSnapshot, st api.AgentStep) {
	t.Helper()
	require.Equal(t, api.StepOutcomeUnknown, st.Status, "the look could not tell: %q", st.Error)
	require.True(t, api.InDoubt(st))
	require.Empty(t, st.RetryOrderedBy, "the retry is dropped with the run")
	inDoubt := api.FollowUpInDoubt(snap, snap.Steps)
	require.Len(t, inDoubt, 1, "a follow-up carries it as maybe done")
	require.Equal(t, st.OperationKey, inDoubt[0].OperationKey)
	events := h.events()
	require.Contains(t, events[len(events)-1].Detail, st.ID+"'s outcome is unknown", "the run's end names it")
}

// A run cancelled while its post's answer is lost, whose first look is
// refused, does not end at once: the post may still land, so it looks
// again until it cannot, and finds the comment that lands late.
func TestACancelledRunWhoseLookCannotTellLooksUntilItsAttemptCanNoLongerLand(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	// The create lists comments first (let through); the run's first look
	// is refused, so it cannot tell.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: ghsandbox.ModeStatus, Status: 403, After: 1, Count: 1})
	h.whenActivityStarts(".create-1", func() { h.cancelAs("carol", "stop now", "c1") })
	in := demoInput()
	window := in.ToolTimeout + api.ToolSpec{}.ResendMargin()
	h.landTheFirstAttemptAt(approvedAt + window - 2*time.Second)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, 1, createRequests(h.sandbox), "nothing sent after the cancel")
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status, "the late comment was found: %q", st.Error)
	require.Equal(t, api.EffectFound, st.Effect)
	held := eventsWith(h.events(), func(e api.Event) bool {
		return e.Type == api.EventRunStatus && strings.HasPrefix(e.Label, "cancelled; looking for the comment until ")
	})
	require.NotEmpty(t, held, "the run said what it waited for")
	requireLegalHistory(t, h.events())
}

// lookInSandbox is a look that answers from the sandbox itself: found when
// a comment carries the operationKey, else not created.
func (h *harness) lookInSandbox(_ context.Context, in api.ToolInput) (api.ToolReconciliation, error) {
	for _, c := range h.sandbox.Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, in.OperationKey) {
			content, _ := json.Marshal(map[string]any{"id": c.ID})
			return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: api.ToolOutput{Content: content, ExternalID: itoa64(c.ID)}}, nil
		}
	}
	return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
}

// A cancelled run's look reads "not created" while the attempt may still
// land, but answers after its window closed; the comment lands after the
// read, inside the window. The look's answer is judged by when it read:
// the run looks again, finds the comment, and does not call it not made.
func TestACancelAfterALookThatReadBeforeTheWindowClosedLooksAgain(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.failThePostUnknown()
	in := demoInput()
	window := in.ToolTimeout + api.ToolSpec{}.ResendMargin()
	h.env.OnActivity(api.ActivityReconcileTool, mock.Anything, mock.Anything).After(window+3*time.Second).
		Return(api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil).Once()
	h.env.OnActivity(api.ActivityReconcileTool, mock.Anything, mock.Anything).Return(h.lookInSandbox)
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "stop now", "c1") }, approvedAt+time.Second)
	h.landTheFirstAttemptAt(approvedAt + window/2)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity))
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status, "the look read before the window closed: %q", st.Error)
	require.Equal(t, api.EffectFound, st.Effect)
	requireLegalHistory(t, h.events())
}

// A cancelled run whose history grows long while the gate holds does not
// continue as new: its next generation would end at once, before the
// attempt can no longer land. It holds on, and finds the late comment.
func TestACancelledRunHoldsThroughALongHistoryRatherThanContinueAsNew(t *testing.T) {
	h := newHarness(t)
	h.retryEarly()
	in := gateInput()
	in.HistoryThreshold = 500
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "stop now", "c1") }, retryTakenAt+2*time.Second)
	h.env.RegisterDelayedCallback(func() { h.env.SetCurrentHistoryLength(in.HistoryThreshold) }, retryTakenAt+3*time.Second)
	h.landTheFirstAttemptAt(retryTakenAt + 10*time.Second)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError(), "the cancelled run ends in this generation")

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, api.StepSucceeded, h.commentStep(snap).Status, "the late comment was found")
}
