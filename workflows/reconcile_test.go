package workflows

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func (h *harness) fault(f ghsandbox.Fault) {
	h.t.Helper()
	require.NoError(h.t, h.sandbox.AddFault(f))
}

// cannotTell loses the create's response and then forbids every lookup, so
// reconciliation can never prove either way and the run waits for an
// operator; the run's approval is given when it waits.
func (h *harness) cannotTell() {
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	// The create lists comments first (let through), then every lookup is forbidden.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: "status", Status: 403, After: 1, Count: 1000})
	h.approveWhenWaiting()
}

func (h *harness) approveWhenWaiting() {
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
}

func TestLostResponseReconcilesToOneComment(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	comments := h.sandbox.Comments("acme", "widgets", 1)
	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt, "found by reconciliation, not posted again")
	require.Equal(t, itoa64(comments[0].ID), st.ExternalResourceID)
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	// system, user, assistant(2 reads), 2 results, assistant(comment), 1 result.
	require.Equal(t, 7, snap.Checkpoint.ConversationLength, "the tool result is appended once")
	results := 0
	for _, m := range h.conversation(0) {
		if m.Role == api.RoleTool && m.ToolCallID == st.CallID {
			results++
			require.Contains(t, m.Content, itoa64(comments[0].ID))
		}
	}
	require.Equal(t, 1, results, "the comment's tool result is in the conversation exactly once")

	events := h.events()
	requireLegalHistory(t, events)
	reconciling := -1
	for i, e := range events {
		if e.Type == api.EventRunStatus && e.Status == string(api.RunReconciling) {
			reconciling = i
			break
		}
	}
	require.GreaterOrEqual(t, reconciling, 0, "the events show reconciling")
	require.Equal(t, api.LabelReconciling, events[reconciling].Label)
	for _, e := range events[reconciling:] {
		require.NotEqual(t, api.LabelPosting, e.Label, "no second Posting after reconciling (seq %d)", e.Sequence)
	}
}

func TestCannotTellWaitsForOperatorResolve(t *testing.T) {
	h := newHarness(t)
	h.cannotTell()
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		require.Equal(t, api.RunReconciling, snap.Run.Status)
		require.Equal(t, api.LabelCannotTell, snap.Label)
		st := h.commentStep(snap)
		require.Equal(t, api.StepOutcomeUnknown, st.Status)
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: "step-999", Decision: api.ResolveRetry, By: "ops"})
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveMarkSucceeded, By: "ops"})
		id := h.sandbox.Comments("acme", "widgets", 1)[0].ID
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveMarkSucceeded, ExternalResourceID: itoa64(id), By: "ops"})
	}, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, itoa64(h.sandbox.Comments("acme", "widgets", 1)[0].ID), st.ExternalResourceID)
	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 2)
	require.Contains(t, ignored[0].Detail, "not waiting for an operator")
	require.Contains(t, ignored[1].Detail, "needs the externalResourceId")
	requireLegalHistory(t, h.events())
}

func TestCannotTellThenRetryFindsTheMarkerAndPostsNothingNew(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	// The lookup is answered 404 (cannot tell); the retry's gate then looks
	// again and finds the marker, so nothing is sent.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: "status", Status: 404, After: 1})
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveRetry, By: "ops"})
	}, time.Hour)
	h.runPostingOnce(demoInput(), 1)
}

func TestRateLimitWaitsItsResetThenPostsOnce(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault ghsandbox.Fault
		wait  time.Duration
		why   string
	}{{
		name:  "SecondaryRateLimitWaitsRetryAfterThenPostsOnce",
		fault: ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 403, RetryAfter: 90},
		wait:  90 * time.Second, why: "the durable timer waited Retry-After",
	}, {
		name:  "PrimaryRateLimitIsHonouredToo",
		fault: ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 403, RetryAfter: 30, Primary: true},
		wait:  30 * time.Second, why: "the durable timer waited for the reset",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			log := h.logCommands()
			h.fault(tc.fault)
			h.approveWhenWaiting()
			start := h.env.Now()
			in := demoInput()
			h.runPostingOnce(in, 2)
			require.GreaterOrEqual(t, h.env.Now().Sub(start), time.Minute+tc.wait, tc.why)
			// The wait outlasts the refused attempt's window (its timeout
			// and the margin, from its answer): the look after it opens no
			// second window, and the next attempt goes at once.
			window := in.ToolTimeout + api.ToolSpec{}.ResendMargin()
			require.Greater(t, tc.wait, window)
			sent := log.starts(createActivity)
			require.Len(t, sent, 2)
			require.GreaterOrEqual(t, sent[1].Sub(sent[0]), tc.wait)
			require.Less(t, sent[1].Sub(sent[0]), tc.wait+window, "sent once the wait was over, not held for a window counted from the look")
			limited := eventsWith(h.events(), func(e api.Event) bool { return e.Label == api.LabelRateLimited })
			require.NotEmpty(t, limited)
			require.Contains(t, limited[0].Detail, tc.wait.String())
			requireLegalHistory(t, h.events())
		})
	}
}

func TestValidationErrorFailsTheStepWithGitHubsMessage(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 422})
	h.approveWhenWaiting()
	snap := h.runPostingNothing(demoInput())
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Equal(t, 1, st.Attempt, "a proven refusal is never retried")
	require.Contains(t, st.Error, "422")
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Contains(t, strings.ToLower(snap.Run.Result), "not posted")
}

func TestServerErrorsAreReconciledAndRetriedWithTheSameKey(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 502, Count: 3})
	h.approveWhenWaiting()
	st := h.runPostingOnce(demoInput(), 4)
	require.Equal(t, testRunID+":5", st.OperationKey)
	var waits []string
	for _, e := range h.events() {
		if e.Type == api.EventRunStatus && strings.HasPrefix(e.Detail, "waiting ") {
			waits = append(waits, e.Detail)
		}
	}
	require.Equal(t, []string{"waiting 2s", "waiting 4s"}, waits,
		"before attempts 3 and 4 of one key the run backs off 2s, then 4s")
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// forgeMarker posts, as mallory, a comment carrying the marker the run's
// comment step will use, before the run starts.
func (h *harness) forgeMarker() ghsandbox.Comment {
	h.t.Helper()
	c, err := h.sandbox.PostAs(ghsandbox.CommentAs{
		Owner: "acme", Repo: "widgets", Number: 1, User: "mallory",
		Body: "Looks fine, already posted.\n\n" + api.OperationMarker(testRunID+":5"),
	})
	require.NoError(h.t, err)
	return c
}

func lookalikes(events []api.Event) []api.Event {
	return eventsWith(events, func(e api.Event) bool { return e.Type == api.EventLookalikeIgnored })
}

func TestForgedMarkerIsRecordedAndTheApprovedCommentIsStillPosted(t *testing.T) {
	h := newHarness(t)
	forged := h.forgeMarker()
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	comments := h.sandbox.Comments("acme", "widgets", 1)
	require.Len(t, comments, 2, "mallory's comment and ours")
	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.NotEqual(t, itoa64(forged.ID), st.ExternalResourceID, "a forged marker proves nothing")
	require.Equal(t, itoa64(comments[1].ID), st.ExternalResourceID)
	ignored := lookalikes(h.events())
	require.Len(t, ignored, 1)
	require.Equal(t, st.ID, ignored[0].StepID)
	require.Contains(t, ignored[0].Detail, "ignored comment "+itoa64(forged.ID)+" by mallory: carries the marker but was written by mallory")
	requireLegalHistory(t, h.events())
}

func TestForgedMarkerDuringReconciliationIsRecordedAndOurCommentFound(t *testing.T) {
	h := newHarness(t)
	forged := h.forgeMarker()
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	comments := h.sandbox.Comments("acme", "widgets", 1)
	require.Len(t, comments, 2, "mallory's comment and ours, posted once")
	st := h.commentStep(h.snapshot())
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt, "found by reconciliation, not posted again")
	require.Equal(t, itoa64(comments[1].ID), st.ExternalResourceID)
	ignored := lookalikes(h.events())
	require.Len(t, ignored, 1, "the lookup reports the look-alike once")
	require.Contains(t, ignored[0].Detail, "ignored comment "+itoa64(forged.ID)+" by mallory")
}

// A cancel during a rate limit's wait does not cut the step short: the run
// still looks for the attempt's effect before it ends, and the step says
// what happened to it.
func TestACancelDuringARateLimitsWaitStillLooksForTheAttemptBeforeTheRunEnds(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 403, RetryAfter: 90})
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		require.Equal(t, api.LabelRateLimited, h.snapshot().Label)
		h.cancelAs("carol", "stop now", "c1")
	}, time.Minute+30*time.Second)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError(), "the run ends cancelled, not failed by the interrupted wait")

	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, 0, h.markedComments())
	require.Equal(t, 1, log.attemptCount(createActivity), "never sent again")
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "not tried again: run cancelled by carol: stop now")
	requireLegalHistory(t, h.events())
}

// A cancel during the backoff before a key's next attempt ends the step
// not tried again, and the run cancelled, not failed by the cut wait.
func TestACancelDuringTheBackoffBeforeANextAttemptSendsNothingMore(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 502, Count: 10})
	h.approveWhenWaiting()
	cancelled := false
	h.env.SetOnTimerScheduledListener(func(_ string, d time.Duration) {
		if d == 2*time.Second && !cancelled && log.attemptCount(createActivity) == 2 {
			cancelled = true
			h.cancelAs("carol", "stop now", "c1")
		}
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError(), "the run ends cancelled, not failed by the interrupted wait")
	require.True(t, cancelled, "the backoff before attempt 3 began")

	snap := h.snapshot()
	requireCancelledBy(t, snap, "carol")
	require.Equal(t, 0, h.markedComments())
	require.Equal(t, 2, log.attemptCount(createActivity), "attempt 3 never sent")
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "not tried again: run cancelled by carol: stop now")
	requireLegalHistory(t, h.events())
}
