package workflows

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func (h *harness) cancelAs(by, reason, requestID string) {
	h.env.SignalWorkflow(api.SignalCancel, api.CancelSignal{By: by, Reason: reason, RequestID: requestID, Channel: "test"})
}

// whenActivityStarts runs fn once, as the first activity whose ID holds
// part starts: a signal sent then arrives while that attempt is in flight.
func (h *harness) whenActivityStarts(part string, fn func()) {
	done := false
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		if !done && strings.Contains(info.ActivityID, part) {
			done = true
			fn()
		}
	})
}

func requireCancelledBy(t *testing.T, snap api.RunSnapshot, by string) {
	t.Helper()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.LabelCancelled, snap.Label)
	require.NotNil(t, snap.Cancel)
	require.Equal(t, by, snap.Cancel.By)
}

func TestCancelWhileWaitingExpiresTheActionSayingWhoAndWhyAndPostsNothing(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(string) { h.cancelAs("carol", "wrong pull request", "c1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	require.Equal(t, "run cancelled by carol: wrong pull request", snap.PendingAction.Reason)
	require.Equal(t, api.StepExpired, h.commentStep(snap).Status)
	require.Empty(t, snap.Outcome.Posted)
	require.Len(t, snap.Outcome.Declined, 1)
	var accepted []api.Event
	for _, ev := range h.events() {
		if ev.Type == api.EventCancelAccepted {
			accepted = append(accepted, ev)
		}
	}
	require.Len(t, accepted, 1, "the starter waits for this typed event, not for a wording")
	require.Contains(t, accepted[0].Detail, "carol")
	requireLegalHistory(t, h.events())
}

func TestCancelWhileThePostsAnswerIsLostWaitsForReconcileAndEndsCancelledWithOneComment(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.whenActivityStarts(".create-1", func() { h.cancelAs("carol", "stop now", "c1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt)
	require.Len(t, snap.Outcome.Posted, 1)
	require.Equal(t, st.ExternalResourceID, snap.Outcome.Posted[0].ExternalID)
	requireLegalHistory(t, h.events())
}

func TestTemporalCancelWhileThePostsAnswerIsLostStillReconcilesToOneComment(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.whenActivityStarts(".create-1", h.env.CancelWorkflow)
	h.run(demoInput())
	require.True(t, temporal.IsCanceledError(h.env.GetWorkflowError()), "%v", h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, api.CancelledByTemporal)
	require.Equal(t, api.StepSucceeded, h.commentStep(snap).Status)
	require.Len(t, snap.Outcome.Posted, 1)
	requireLegalHistory(t, h.events())
}

// A supersede while the post is in flight, then Temporal's cancel of the
// workflow while the run reconciles it: the run ends cancelled, as
// Temporal's cancel asks, not completed as superseded.
func TestATemporalCancelAfterASupersedeEndsTheRunCancelled(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		switch {
		case strings.HasSuffix(info.ActivityID, ".create-1"):
			h.supersede(api.SupersedeSignal{Head: newHead, By: "run-next"})
		case strings.HasSuffix(info.ActivityID, ".reconcile-1"):
			h.env.CancelWorkflow()
		}
	})
	h.run(demoInput())
	require.True(t, temporal.IsCanceledError(h.env.GetWorkflowError()), "%v", h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.StepSucceeded, h.commentStep(snap).Status)
	requireLegalHistory(t, h.events())
}

// A writer's cancel waits on its permission check while the post is in
// flight; a supersede lands meanwhile. Once the writer is found a writer,
// the cancel is a duplicate: the run ends superseded, as the supersede
// said, and the cancel's who and why do not replace the supersede's.
func TestACancelWhosePermissionCheckAnswersAfterASupersedeIsADuplicate(t *testing.T) {
	h := newHarness(t)
	var superseded atomic.Bool
	// bob's check (the approver's came first) is answered only once the
	// supersede was sent: it arrives while the check runs.
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in api.RepoPermissionInput) (api.RepoPermission, error) {
			if in.Login == "bob" && superseded.CompareAndSwap(false, true) {
				h.supersede(api.SupersedeSignal{Head: newHead, By: "run-next"})
			}
			return api.RepoPermission{Permission: "write"}, nil
		})
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.whenActivityStarts(".create-1", func() { h.cancelAs("bob", "not needed", "b1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError(), "the run ended while bob's check ran; its answer must not move the step the run closed")

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	if !superseded.Load() || snap.Cancel == nil {
		t.Skip("this interleaving ended the run before bob's cancel, or the supersede, was handled: nothing more to check")
	}
	require.True(t, snap.Cancel.Superseded)
	require.Len(t, permissionSteps(snap), 2, "the approver's and bob's")
	for _, e := range ignoredDetails(h.events()) {
		require.True(t, strings.HasPrefix(e, "duplicate: the run was already cancelled by "), e)
	}
	requireLegalHistory(t, h.events())
}

func TestCancelDuringReconciliationWaitsForItsAnswer(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	h.whenActivityStarts(".reconcile-1", func() { h.cancelAs("carol", "stop now", "c1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, api.StepSucceeded, h.commentStep(snap).Status)
	requireLegalHistory(t, h.events())
}

func TestCancelAfterANotCreatedReconcileEndsTheStepFailedWithoutAnotherAttempt(t *testing.T) {
	h := newHarness(t)
	// The create fails before it posts; reconcile then proves nothing was made.
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeStatus, Status: 502})
	h.approveWhenWaiting()
	h.whenActivityStarts(".create-1", func() { h.cancelAs("carol", "stop now", "c1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Equal(t, 1, st.Attempt)
	require.Contains(t, st.Error, "not tried again: run cancelled by carol: stop now")
	require.Empty(t, snap.Outcome.Posted)
	requireLegalHistory(t, h.events())
}

func TestCancelWhenReconcileCannotTellLeavesTheStepUnknownAndTheRunSaysSo(t *testing.T) {
	h := newHarness(t)
	h.cannotTell()
	h.whenActivityStarts(".create-1", func() { h.cancelAs("carol", "stop now", "c1") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepOutcomeUnknown, st.Status)
	require.Empty(t, snap.AwaitingResolve)
	last := h.events()[len(h.events())-1]
	require.Equal(t, string(api.RunCancelled), last.Status)
	require.Contains(t, last.Detail, st.ID+"'s outcome is unknown")
	require.Len(t, snap.Outcome.Failed, 1)
	require.Contains(t, snap.Outcome.Failed[0].Error, "outcome unknown")
}

func TestCancelsTheRunRefusesAreRecordedAndChangeNothing(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) {
		h.cancelAs("mallory", "mine now", "m1")
		h.cancelAs("carol", "", "c0")
		h.cancelAs("carol", strings.Repeat("x", api.MaxCancelReasonBytes+1), "c00")
		h.cancelAs("  ", "who am I", "b1")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	snap := h.runPostingOnce(in, 1)
	require.Equal(t, api.StepSucceeded, snap.Status)
	final := h.snapshot()
	require.Equal(t, api.RunCompleted, final.Run.Status)
	require.Nil(t, final.Cancel)
	require.Equal(t, []string{
		"mallory may not cancel this run: only its requester or an approver may",
		"cancel by carol without a reason; a cancel must say why",
		"cancel by carol: the reason must be valid UTF-8 of at most 2000 bytes",
		"cancel without who sent it (by)",
	}, ignoredDetails(h.events()))
}

func TestAnApproverMayCancelAndARepeatedCancelRequestIsIgnored(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(string) {
		// A refused request is remembered, so its retry is recognised;
		// another person's same requestId is theirs.
		h.cancelAs("alice", "", "r1")
		h.cancelAs("alice", "duplicate of #2", "r1")
		h.cancelAs("mallory", "x", "r2")
		h.cancelAs("alice", "duplicate of #2", "r2")
	})
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	requireCancelledBy(t, snap, "alice")
	require.Equal(t, "duplicate of #2", snap.Cancel.Reason)
	require.Equal(t, 0, h.markedComments())
	require.Equal(t, []string{
		"cancel by alice without a reason; a cancel must say why",
		`repeated cancel request "r1"`,
		"mallory may not cancel this run: only its requester or an approver may",
	}, ignoredDetails(h.events()))
}

func TestOnARunWithoutApproversOnlyAWriterBesidesTheRequesterMayCancel(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in api.RepoPermissionInput) (api.RepoPermission, error) {
			if in.Login == "bob" {
				return api.RepoPermission{Permission: "write"}, nil
			}
			return api.RepoPermission{Permission: "read"}, nil
		})
	h.whenWaiting(time.Minute, func(string) {
		h.cancelAs("mallory", "mine now", "m1")
		h.cancelAs("bob", "superseded", "b1")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	requireCancelledBy(t, snap, "bob")
	require.Equal(t, 0, h.markedComments())
	require.Contains(t, ignoredDetails(h.events()), "mallory has read permission on acme/widgets; cancelling needs write")
	require.Len(t, permissionSteps(snap), 2)
}

func TestAMalformedCancelSignalIsRecordedAndStopsNothing(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.env.SignalWorkflow(api.SignalCancel, "stop everything")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.runPostingOnce(demoInput(), 1)
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Nil(t, snap.Cancel)
	ignored := ignoredDetails(h.events())
	require.Len(t, ignored, 1)
	require.True(t, strings.HasPrefix(ignored[0], "malformed cancel signal: "), ignored[0])
}

func TestASecondCancelWhileTheRunSettlesIsADuplicateAndKeepsTheFirstOnesWhoAndWhy(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: ghsandbox.ModeDropResponse})
	h.approveWhenWaiting()
	// The first cancel comes while the post is in flight, the second while
	// the run reconciles it: the run is cancelled, not yet ended.
	h.env.SetOnActivityStartedListener(func(info *activity.Info, _ context.Context, _ converter.EncodedValues) {
		switch {
		case strings.HasSuffix(info.ActivityID, ".create-1"):
			h.cancelAs("carol", "wrong pull request", "c1")
		case strings.HasSuffix(info.ActivityID, ".reconcile-1"):
			h.cancelAs("alice", "mine instead", "a1")
		}
	})
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, "wrong pull request", snap.Cancel.Reason)
	require.Equal(t, []string{"duplicate: the run was already cancelled by carol"}, ignoredDetails(h.events()))
	require.Len(t, eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventCancelAccepted }), 1)
}

func TestACancelWhosePermissionCannotBeCheckedIsNotAppliedAndSaysWhy(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in api.RepoPermissionInput) (api.RepoPermission, error) {
			if in.Login == "bob" {
				return api.RepoPermission{}, temporal.NewNonRetryableApplicationError("GitHub said 404", "NotFound", nil)
			}
			return api.RepoPermission{Permission: "write"}, nil
		})
	h.whenWaiting(time.Minute, func(id string) {
		h.cancelAs("bob", "superseded", "b1")
	})
	h.whenWaiting(2*time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
	h.runPostingOnce(demoInput(), 1)

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Nil(t, snap.Cancel)
	ignored := ignoredDetails(h.events())
	require.Len(t, ignored, 1)
	require.True(t, strings.HasPrefix(ignored[0], "cancel by bob not applied: bob's permission on acme/widgets could not be checked"), ignored[0])
	checks := permissionSteps(snap)
	require.Len(t, checks, 2, "bob's cancel, then alice's approval")
	require.Equal(t, api.StepFailed, checks[0].Status)
	require.Equal(t, api.StepSucceeded, checks[1].Status)
}

func TestACancelOfARunThatEndedSaysSo(t *testing.T) {
	for _, status := range []api.RunStatus{api.RunCompleted, api.RunFailed, api.RunCancelled} {
		why, needsWriter := refuseCancel(api.CancelSignal{By: " carol ", Reason: "stop"}, api.Run{UserID: "carol", Status: status}, nil)
		require.Equal(t, "cancel by carol arrived after the run was "+string(status), why)
		require.False(t, needsWriter)
	}
	why, needsWriter := refuseCancel(api.CancelSignal{By: "carol", Reason: "stop"}, api.Run{UserID: "carol", Status: api.RunReconciling}, nil)
	require.Empty(t, why, "the requester may cancel a run that is still reconciling")
	require.False(t, needsWriter)
	why, _ = refuseCancel(api.CancelSignal{By: "carol", Reason: "stop"}, api.Run{UserID: "carol", Status: api.RunCompleted},
		&api.Cancellation{By: "alice"})
	require.Equal(t, "duplicate: the run was already cancelled by alice", why, "the cancellation is named before the end")

	longest := strings.Repeat("é", api.MaxCancelReasonBytes/2)
	why, _ = refuseCancel(api.CancelSignal{By: "carol", Reason: longest}, api.Run{UserID: "carol", Status: api.RunRunning}, nil)
	require.Empty(t, why, "a reason of exactly the bound is taken")
	why, _ = refuseCancel(api.CancelSignal{By: "carol", Reason: longest + "x"}, api.Run{UserID: "carol", Status: api.RunRunning}, nil)
	require.Equal(t, "cancel by carol: the reason must be valid UTF-8 of at most 2000 bytes", why)
	why, _ = refuseCancel(api.CancelSignal{By: "carol", Reason: "stop \xff"}, api.Run{UserID: "carol", Status: api.RunRunning}, nil)
	require.Equal(t, "cancel by carol: the reason must be valid UTF-8 of at most 2000 bytes", why)
}

// A run remembers the requestIds of at most maxRequestIDs cancels: a
// cancel past them is judged again when repeated, never refused as a
// repeat of a request the run did not keep.
func TestARunRemembersAtMostItsBoundOfCancelRequestIDs(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		for i := 0; i < maxRequestIDs; i++ {
			h.cancelAs("carol", "", fmt.Sprintf("kept-%d", i))
		}
		h.cancelAs("carol", "", "past-the-bound")
		h.cancelAs("carol", "", "past-the-bound")
		h.cancelAs("carol", "", "kept-0")
		h.decide(id, api.DecisionReject, "alice", "no")
	})
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())
	ignored := ignoredDetails(h.events())
	require.Len(t, ignored, maxRequestIDs+3)
	noReason := "cancel by carol without a reason; a cancel must say why"
	require.Equal(t, noReason, ignored[maxRequestIDs], "the cancel past the bound is judged")
	require.Equal(t, noReason, ignored[maxRequestIDs+1], "and judged again when repeated: it was not kept")
	require.Equal(t, `repeated cancel request "kept-0"`, ignored[maxRequestIDs+2])
}
