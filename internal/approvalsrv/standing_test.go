package approvalsrv

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func cancelledRun() api.RunSnapshot {
	snap := waitingRun("alice")
	cancel := &api.Cancellation{By: "alice", Reason: "wrong pull request", At: testNow}
	snap.Run.Status, snap.Cancel = api.RunCancelled, cancel
	snap.PendingAction.State, snap.PendingAction.Reason = api.ActionExpired, cancel.Detail()
	snap.Outcome = api.Outcome{
		Summary: "Nothing posted on acme/widgets#1; a comment not decided: " + cancel.Detail(),
		Declined: []api.DeclinedOutcome{{StepID: "step-3", ActionID: "act-1", Target: "acme/widgets#1",
			State: api.ActionExpired, Reason: cancel.Detail(), Noun: "comment"}},
	}
	return snap
}

func TestACancelledRunSaysWhoCancelledAndWhyOnThePageAndInHistoryNeverExpired(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", cancelledRun())
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.Contains(t, page, `<span id="run-status" class="badge badge-cancelled">Cancelled by alice</span>`)
	require.Contains(t, page, `<span id="run-status-detail">wrong pull request</span>`)
	require.Contains(t, page, "Not decided: run cancelled by alice: wrong pull request · a comment on acme/widgets#1")
	require.NotContains(t, page, "Expired without a decision")

	history := readAll(t, h.get("/runs", nil))
	require.Contains(t, history, "Cancelled by alice")
	require.Contains(t, history, "wrong pull request")
}

func TestARunSentBackWithFeedbackIsNotRejectedAndAPartialRunNamesTheToolThatFailed(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	sent := waitingRun("alice")
	sent.Run.Status, sent.Run.Outcome = api.RunCompleted, api.OutcomeComplete
	sent.PendingAction.State, sent.PendingAction.Feedback, sent.PendingAction.DecidedBy, sent.PendingAction.Reason = api.ActionRejected, true, "bob", "shorter please"
	sent.Outcome = api.Outcome{Summary: "Nothing posted", Declined: []api.DeclinedOutcome{{ActionID: "act-1", State: api.ActionRejected,
		Feedback: true, By: "bob", Reason: "shorter please", Target: "acme/widgets#1", Noun: "comment"}}}
	h.runs.put("run-sent", sent)

	partial := recommendationRun()
	partial.Run.Status, partial.Run.Outcome, partial.Run.UserID = api.RunCompleted, api.OutcomePartial, viewerLogin
	partial.Outcome = api.Outcome{Summary: "Saved 1 recommendation on table for 2 in riverside (budget 150); 1 step failed",
		Posted: []api.PostedOutcome{{StepID: "step-9", ActionID: "act-1", Target: "merchants.test/recommendations", Made: "saved recommendation"}},
		Failed: []api.FailedOutcome{{StepID: "step-5", What: "get_coupons", Error: "coupons unavailable"}}}
	h.runs.put("run-partial", partial)

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-sent")
	require.Contains(t, page, `badge-sent_back">Sent back by bob</span>`)
	require.Contains(t, page, "Sent back with feedback by bob: shorter please")
	require.NotContains(t, page, "Rejected")

	page, _ = h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-partial")
	require.Contains(t, page, `badge-partial">Partial</span>`)
	require.Contains(t, page, "get_coupons failed (coupons unavailable)")

	history := readAll(t, h.get("/runs", nil))
	require.Contains(t, history, "Partial")
	require.Contains(t, history, "get_coupons failed (coupons unavailable)")
	require.Contains(t, history, "Sent back by bob")
}
