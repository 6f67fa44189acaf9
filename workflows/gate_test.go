package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// approvedAt is when these tests approve the post; its attempt runs at once.
const approvedAt = time.Minute

// failThePostUnknown makes the post's one request fail with a 502, which
// proves nothing: GitHub may still be making the comment.
func (h *harness) failThePostUnknown() {
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 502})
	h.approveWhenWaiting()
}

// landTheFirstAttemptAt plays the first attempt's request reaching GitHub
// late: at workflow time at, the comment it would have made appears, by
// the bot, with the approved body and the step's marker.
func (h *harness) landTheFirstAttemptAt(at time.Duration) {
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		st := h.commentStep(snap)
		require.Equal(h.t, 1, st.Attempt, "the post was not sent again before the first attempt could land")
		_, err := h.sandbox.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: h.sandbox.BotLogin(),
			Body: ghapi.MarkedBody(snap.PendingAction.Preview, st.OperationKey)})
		require.NoError(h.t, err)
	}, at)
}

func TestAPostNotFoundWhileItsRequestMayLandIsFoundWhenItLandsAndNotSentAgain(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	in := demoInput()
	margin := api.ToolSpec{}.ResendMargin()
	// Within the window (tool timeout + margin) the first attempt opened,
	// but after a resend at once would have posted.
	h.landTheFirstAttemptAt(approvedAt + (in.ToolTimeout+margin)/2)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt, "found, never sent again")
	require.Contains(t, string(st.SafeOutput), `"alreadyExisted":true`)
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	requireLegalHistory(t, h.events())
}

func TestAPostNotFoundIsSentAgainOnlyOnceItsAttemptsDeadlineAndMarginHavePassed(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	in := demoInput()
	margin := api.ToolSpec{}.ResendMargin()
	st := h.runPostingOnce(in, 2)
	require.Nil(t, st.ResendNotBefore, "the second attempt's window closed with its answer")

	events := h.events()
	requireLegalHistory(t, events)
	notFound := eventsWith(events, func(e api.Event) bool {
		return e.StepID == st.ID && strings.Contains(e.Detail, "the attempt's request may land until")
	})
	require.Len(t, notFound, 1, "one window, opened by the first attempt's answer")
	resent := eventsWith(events, func(e api.Event) bool {
		return e.StepID == st.ID && strings.Contains(e.Detail, "attempt 2 sent")
	})
	require.Len(t, resent, 1)
	require.GreaterOrEqual(t, resent[0].At.Sub(notFound[0].At), in.ToolTimeout+margin,
		"sent again no sooner than the first attempt's deadline and the margin after its answer")
	lookedAgain := eventsWith(events, func(e api.Event) bool {
		return e.Type == api.EventRunStatus && strings.HasPrefix(e.Label, "not found yet; sending at ") &&
			strings.HasSuffix(e.Label, " unless the comment appears first") && strings.Contains(e.Detail, "looking again in")
	})
	require.Greater(t, len(lookedAgain), 1, "the run looked again while the first attempt could still land")
	for _, e := range lookedAgain {
		require.Less(t, e.At, resent[0].At, "every look again came before the resend")
	}
}

// Every attempt passes one gate, whatever ordered it. These tests order a
// resend while the first attempt may still land: the first attempt's
// create fails with a 502 at approvedAt (GitHub may still make the
// comment), the looks after it are refused, so the run cannot tell and
// waits for an operator, and the operator orders a retry at once.

// gateTimeout is the tool timeout of these runs: long enough that the
// operator's retry comes while the first attempt may still land.
const gateTimeout = 30 * time.Second

// retryTakenAt is when the operator's retry arrives: after the run's looks
// were refused, within the first attempt's window (gateTimeout + margin).
const retryTakenAt = approvedAt + 20*time.Second

func gateInput() api.RunInput {
	in := demoInput()
	in.ToolTimeout = gateTimeout
	return in
}

// retryEarly plays the setup above; the operator's retry comes at
// retryTakenAt.
func (h *harness) retryEarly() {
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 502})
	// The create lists comments first (let through); the run's look is
	// refused, which it answers as cannot tell.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: ghsandbox.ModeStatus, Status: 403, After: 1, Count: 1})
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		st := h.commentStep(snap)
		require.Equal(h.t, st.ID, snap.AwaitingResolve, "the run waits for an operator: %q", snap.Label)
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveRetry, By: "ops"})
	}, retryTakenAt)
}

// requireHeld checks, at workflow time at, that the retry is taken and
// held, saying when it will be sent.
func (h *harness) requireHeld(at time.Duration) {
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		st := h.commentStep(snap)
		require.Equal(h.t, 1, st.Attempt, "not sent again yet")
		require.Equal(h.t, api.StepRunning, st.Status)
		require.Equal(h.t, "ops", st.RetryOrderedBy)
		require.Equal(h.t, api.RunReconciling, snap.Run.Status)
		require.True(h.t, strings.HasPrefix(snap.Label, "retry taken; sending at ") &&
			strings.HasSuffix(snap.Label, " UTC unless the comment appears first"), "label %q", snap.Label)
	}, at)
}

func TestAnEarlyRetryIsHeldVisiblyUntilTheAttemptCanNoLongerLandThenSentOnce(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.retryEarly()
	h.requireHeld(retryTakenAt + 5*time.Second)
	in := gateInput()
	st := h.runPostingOnce(in, 2)

	sent := log.starts(createActivity)
	require.Len(t, sent, 2)
	require.GreaterOrEqual(t, sent[1].Sub(sent[0]), in.ToolTimeout+api.ToolSpec{}.ResendMargin(),
		"the retry was sent only once the first attempt could no longer land")
	taken := eventsWith(h.events(), func(e api.Event) bool {
		return e.StepID == st.ID && strings.Contains(e.Detail, "retry ordered by ops; attempt 2 with the same operationKey; held: sending at ")
	})
	require.Len(t, taken, 1, "the retry was taken, and the step said until when it is held")
	requireLegalHistory(t, h.events())
}

func TestAnEarlyRetryOfACreateStillInFlightSettlesOnTheLateCommentAndSendsNothing(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.retryEarly()
	h.landTheFirstAttemptAt(retryTakenAt + 10*time.Second)
	h.run(gateInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "one create request")
	st := h.commentStep(h.snapshot())
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt, "found, never sent again")
	require.Contains(t, string(st.SafeOutput), `"alreadyExisted":true`)
	requireLegalHistory(t, h.events())
}

func TestACancelWhileARetryIsHeldLooksUntilTheWindowClosesAndSendsNothing(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.retryEarly()
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "stop now", "c1") }, retryTakenAt+2*time.Second)
	h.landTheFirstAttemptAt(retryTakenAt + 10*time.Second)
	h.run(gateInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "one create request")
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status, "the late comment was found: the step says what happened")
	require.Equal(t, 1, st.Attempt)
	requireLegalHistory(t, h.events())
}

func TestACancelWhileARetryIsHeldAndNothingLandsEndsTheStepNotTriedAgain(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.retryEarly()
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "stop now", "c1") }, retryTakenAt+2*time.Second)
	h.run(gateInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "the held retry was never sent")
	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "not tried again: run cancelled by carol: stop now")
	requireLegalHistory(t, h.events())
}

func TestAContinueAsNewWhileARetryIsHeldCarriesTheHoldAndSendsNothing(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := newHarnessWith(t, sandbox)
	first.retryEarly()
	// From here the history is "too long": the held retry continues as new.
	in := gateInput()
	in.HistoryThreshold = 500
	first.env.RegisterDelayedCallback(func() { first.env.SetCurrentHistoryLength(in.HistoryThreshold) }, retryTakenAt+time.Second)
	first.run(in)
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, first.env.GetWorkflowError(), &can, "the held retry continued as new")
	var next api.RunInput
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
	require.Equal(t, 1, createRequests(sandbox), "one create request so far")

	second := newHarnessWith(t, sandbox)
	log := second.logCommands()
	second.env.SetContinuedExecutionRunID("run-of-generation-1")
	second.env.SetStartTime(first.env.Now())
	// The first attempt's comment lands in the second generation, inside
	// its window: a resend at the new generation's start would post twice.
	second.env.RegisterDelayedCallback(func() {
		st := second.commentStep(second.snapshot())
		require.Equal(t, api.StepRunning, st.Status, "the new generation holds the retry")
		_, err := sandbox.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: sandbox.BotLogin(),
			Body: ghapi.MarkedBody(second.snapshot().PendingAction.Preview, st.OperationKey)})
		require.NoError(t, err)
	}, 5*time.Second)
	second.run(next)
	require.NoError(t, second.env.GetWorkflowError())

	require.Equal(t, 1, second.markedComments())
	require.Zero(t, log.attemptCount(createActivity), "the new generation sent nothing")
	st := second.commentStep(second.snapshot())
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt)
}

// createRequests counts the create requests sandbox received.
func createRequests(sandbox *ghsandbox.Server) int {
	n := 0
	for _, r := range sandbox.Requests() {
		if r.Op == ghsandbox.OpCreateComment {
			n++
		}
	}
	return n
}

// Past the window a look that cannot tell sends nothing by itself: the step
// stays in doubt, saying why, and waits for an operator.
func TestALookThatCannotTellOnceTheWindowClosedSendsNothingAndWaitsForAnOperator(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.failThePostUnknown()
	// The create's own listing and the first look (not created) pass; every
	// look after them is refused.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: ghsandbox.ModeStatus, Status: 403, After: 2, Count: 1000})
	in := demoInput()
	window := in.ToolTimeout + api.ToolSpec{}.ResendMargin()
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		st := h.commentStep(snap)
		require.Equal(t, api.StepOutcomeUnknown, st.Status)
		require.True(t, strings.HasPrefix(st.Error, "the earlier attempt can no longer land, and the look cannot tell whether it did: "), st.Error)
		require.Equal(t, st.ID, snap.AwaitingResolve, "an operator decides")
		require.Equal(t, 1, st.Attempt)
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveAbandon, By: "ops"})
	}, approvedAt+window+time.Hour)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "one create request")
	st := h.commentStep(h.snapshot())
	require.Equal(t, api.StepFailed, st.Status)
	require.True(t, api.InDoubt(st))
	requireLegalHistory(t, h.events())
}

// The looks inside the window come soon after the attempt's answer, then
// grow apart with the time since it (at least lookAgainFirst, at most
// lookAgainAtMost), and the last comes as the window closes.
func TestTheLooksInsideTheWindowGrowApartAndTheLastComesAsItCloses(t *testing.T) {
	const window = 40 * time.Second
	notBefore := time.Date(2026, 12, 2, 12, 0, 40, 0, time.UTC)
	opened := notBefore.Add(-window)
	for _, tc := range []struct {
		since, want time.Duration
	}{
		{0, lookAgainFirst},
		{500 * time.Millisecond, lookAgainFirst},
		{time.Second, time.Second},
		{3 * time.Second, 3 * time.Second},
		{lookAgainAtMost, lookAgainAtMost},
		{20 * time.Second, lookAgainAtMost},
		{window - 5*time.Second, 5 * time.Second},
		{window - time.Second, time.Second},
		{window - 300*time.Millisecond, 300 * time.Millisecond},
	} {
		require.Equal(t, tc.want, lookAgainIn(opened.Add(tc.since), notBefore, window), "%s after the answer", tc.since)
	}
	require.Equal(t, time.Second, lookAgainFirst)
	require.Equal(t, 8*time.Second, lookAgainAtMost)
}

func TestTheResendWindowIsTheAttemptsTimeoutAndTheToolsMargin(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	require.Equal(t, now.Add(45*time.Second), resendNotBefore(now, 30*time.Second, 15*time.Second))
	require.Equal(t, "12:00:00 UTC", clock(now))
	require.Equal(t, "12:00:00 UTC", clock(now.In(time.FixedZone("CET", 3600))), "a label reads UTC, whatever the zone")
}

// The looks while the first attempt may still land come at once, then
// twice as far apart, and the last as the window closes: a window of the
// tool timeout and the margin, counted from the attempt's answer.
func TestTheLooksForAPostThatMayLandDoubleUntilTheWindowCloses(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	in := demoInput()
	h.runPostingOnce(in, 2)
	var waits []string
	var total time.Duration
	for _, e := range h.events() {
		if e.Type == api.EventRunStatus && strings.HasPrefix(e.Detail, "looking again in ") {
			w := strings.TrimPrefix(e.Detail, "looking again in ")
			waits = append(waits, w)
			d, err := time.ParseDuration(w)
			require.NoError(t, err)
			total += d
		}
	}
	require.Equal(t, in.ToolTimeout+api.ToolSpec{}.ResendMargin(), total, "the looks span the window, no more")
	require.Equal(t, []string{"1s", "1s", "2s", "4s", "8s", "1s"}, waits,
		"a look a second after the answer, then the time since it, at most 8s, and the last as the window closes")
}

// The last attempt a key may have is in doubt and its look cannot tell; an
// operator orders a retry. The attempts have run out, so nothing is sent,
// and the step does not claim the comment was not made: it stays in doubt
// for the operator, who abandons it.
func TestARetryPastTheLastAttemptSendsNothingAndLeavesTheStepInDoubt(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 502, Count: maxCreateAttempts})
	h.approveWhenWaiting()
	// The looks find nothing until the last attempt, whose looks are refused.
	h.env.OnActivity(api.ActivityReconcileTool, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in api.ToolInput) (api.ToolReconciliation, error) {
			if in.Attempt < maxCreateAttempts {
				return h.lookInSandbox(ctx, in)
			}
			return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "the listing is refused"}, nil
		})
	resolve := func(decision string) func() {
		return func() {
			snap := h.snapshot()
			require.NotEmpty(t, snap.AwaitingResolve, "the run waits for an operator: %q", snap.Label)
			h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: snap.AwaitingResolve, Decision: decision, By: "ops"})
		}
	}
	h.env.RegisterDelayedCallback(resolve(api.ResolveRetry), 2*time.Hour)
	h.env.RegisterDelayedCallback(resolve(api.ResolveAbandon), 4*time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, maxCreateAttempts, createRequests(h.sandbox), "no request after the last attempt")
	st := h.commentStep(h.snapshot())
	require.Equal(t, maxCreateAttempts, st.Attempt)
	require.True(t, api.InDoubt(st), "the last attempt may have made the comment: %s %q", st.Status, st.Error)
	notSent := eventsWith(h.events(), func(e api.Event) bool {
		return e.StepID == st.ID && e.Status == string(api.StepOutcomeUnknown) &&
			strings.HasPrefix(e.Detail, "the retry ordered by ops is not sent: 10 attempts were made, and the look cannot tell")
	})
	require.Len(t, notSent, 1)
	requireLegalHistory(t, h.events())
}
