package approvalsrv

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// noWorkerHarness is waitingHarness with no worker polling the run's queue:
// the run query gets no answer, and only the run's last known state (its
// memo and status search attribute) can be read.
func noWorkerHarness(t *testing.T, perms PermissionChecker, approvers ...string) *harness {
	t.Helper()
	h := waitingHarness(t, perms, approvers...)
	h.runs.mu.Lock()
	h.runs.snapshotsUnavailable = true
	h.runs.mu.Unlock()
	return h
}

const lastKnownWaiting = "run run-1 was last known waiting_for_user: Waiting for approval to comment on acme/widgets#1"

func requireRecorded(t *testing.T, resp *http.Response) {
	t.Helper()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	reply := replyOf(t, resp)
	require.Equal(t, runclient.RecordedNote, reply["status"])
	require.Equal(t, lastKnownWaiting, reply["lastKnown"])
}

func TestSignedDecisionWithNoWorkerIsRecordedBoundToTheLastKnownInput(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")

	requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow))

	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-1", ArgsHash: act1Hash, Decision: "approve", Approver: "alice", RequestID: "req-1", Channel: channelAPI}},
		h.runs.approvalSignals())
}

func TestDecisionsWithNoWorkerAreStillCheckedAgainstTheLastKnownState(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")

	stranger := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", "m-1"), testNow)
	require.Equal(t, http.StatusForbidden, stranger.StatusCode)
	unknown := h.signedPost("/v1/runs/run-1/actions/act-9/decision", decisionBody(t, "approve", "alice", "", "a-9"), testNow)
	require.Equal(t, http.StatusConflict, unknown.StatusCode)
	require.Contains(t, replyOf(t, unknown)["error"], "not waiting in the run's last known state")

	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedDecisionWhenTheRunHasEndedAndNoWorkerAnswersIs409(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")
	h.runs.setEnded("run-1")

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, "the run has ended (completed)", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.approvalSignals())
}

func TestCommentCommandWithNoWorkerIsRecordedAndARedeliveryAddsNothing(t *testing.T) {
	h := noWorkerHarness(t, sandboxPermissions(t), "alice")
	payload := newComment("alice", "/agentrun approve act-1").payload(t)

	requireRecorded(t, h.deliver("issue_comment", "d-1", payload))
	requireRecorded(t, h.deliver("issue_comment", "d-2", payload))

	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-1", ArgsHash: act1Hash, Decision: "approve", Approver: "alice", RequestID: "github-comment:9001", Channel: channelWebhook}},
		h.runs.approvalSignals(), "the comment is bound to the input the run last showed")
}

func TestSignedCancelAndResolveWithNoWorkerAreRecorded(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")

	requireRecorded(t, h.signedPost(cancelPath, cancelBody(t, "alice", "wrong pull request", "c-1"), testNow))
	refused := h.signedPost(cancelPath, cancelBody(t, "mallory", "mine now", "m-1"), testNow)
	require.Equal(t, http.StatusForbidden, refused.StatusCode, "the run's memo names who may cancel")
	requireRecorded(t, h.signedPost(resolvePath, resolveBody(t, "mark_succeeded", "ops", "r-1"), testNow))

	require.Equal(t, []api.CancelSignal{{By: "alice", Reason: "wrong pull request", RequestID: "c-1", Channel: channelAPI}}, h.runs.cancelSignals())
	require.Equal(t, []api.ResolveSignal{{StepID: "step-4", Decision: "mark_succeeded", ExternalResourceID: "1234", By: "ops"}}, h.runs.resolveSignals())
}

func TestRunPageWithNoWorkerShowsTheLastKnownStateAndItsFormRecordsTheDecision(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})

	page, form := b.openRun("run-1")
	require.Equal(t, 1, h.runs.reachCount(), "the read guard's reach serves the page: one wait for the run query, not two")
	require.Contains(t, page, "No worker is answering for this run")
	require.Contains(t, page, "Looks good, but `fmt.Println` is left in cache.go.", "the preview the person decides on")
	require.Contains(t, page, ">Approve</button>")
	form.Set("decision", "approve")
	resp := b.do(http.MethodPost, decisionPagePath, form, nil)

	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	require.Equal(t, 2, h.runs.reachCount(), "and the form's decision")
	require.Equal(t, "/runs/run-1?result=recorded", resp.Header.Get("Location"))
	require.Contains(t, readAll(t, b.do(http.MethodGet, "/runs/run-1?result=recorded", nil, nil)),
		"Recorded; the run will act on it when a worker picks it up.")
	require.Len(t, h.runs.approvalSignals(), 1)
	require.Equal(t, "alice", h.runs.approvalSignals()[0].Approver)
}

func TestAFloodOfCommandsWithNoWorkerIsBoundedPerPersonAndRun(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice", "bob")

	for i := range uncheckedPerPerson {
		requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", fmt.Sprintf("flood-%d", i)), testNow))
	}
	over := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "flood-over"), testNow)
	require.Equal(t, http.StatusTooManyRequests, over.StatusCode)
	require.Contains(t, replyOf(t, over)["error"], "wait until the run acts on them")
	overCancel := h.signedPost(cancelPath, cancelBody(t, "ALICE", "stop", "flood-cancel"), testNow)
	require.Equal(t, http.StatusTooManyRequests, overCancel.StatusCode, "the cap is the person's, whatever the command or spelling")
	requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "bob", "", "bob-1"), testNow))
	require.Len(t, h.runs.approvalSignals(), uncheckedPerPerson+1)

	h.runs.mu.Lock()
	h.runs.snapshotsUnavailable = false
	h.runs.mu.Unlock()
	live := h.signedPost(decisionPath, decisionBody(t, "reject", "alice", "changed my mind", "live-1"), testNow)
	require.Equal(t, http.StatusAccepted, live.StatusCode, "a command a worker checks live is not capped")
	require.Equal(t, statusSignalSent, replyOf(t, live)["status"])
}

func TestAFloodOfCommandsWithNoWorkerUnderManyNamesIsBoundedPerRun(t *testing.T) {
	h := noWorkerHarness(t, nil) // no approvers: the signed caller names the person

	for i := range uncheckedPerRun {
		requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", fmt.Sprintf("name-%d", i), "", fmt.Sprintf("r-%d", i)), testNow))
	}
	over := h.signedPost(decisionPath, decisionBody(t, "approve", "one-more", "", "r-over"), testNow)

	require.Equal(t, http.StatusTooManyRequests, over.StatusCode)
	require.Contains(t, replyOf(t, over)["error"], fmt.Sprintf("this run already has %d commands recorded", uncheckedPerRun))
	require.Len(t, h.runs.approvalSignals(), uncheckedPerRun)
}

// A run that never waited has no memo: with no worker, nothing names who
// may cancel it or read it. A cancel is recorded for the run to check; a
// page says it cannot tell who may read the run yet, and a comment that
// its pull request cannot be matched; neither reveals the run.
func TestARunLastKnownWithoutItsMemoLeavesTheChecksToTheRun(t *testing.T) {
	h := noWorkerHarness(t, sandboxPermissions(t), "alice")
	h.runs.mu.Lock()
	h.runs.noMemo = true
	h.runs.mu.Unlock()

	cancel := h.signedPost(cancelPath, cancelBody(t, "mallory", "mine now", "m-1"), testNow)
	require.Equal(t, http.StatusAccepted, cancel.StatusCode)
	require.Equal(t, "run run-1 was last known waiting_for_user", replyOf(t, cancel)["lastKnown"])
	require.Len(t, h.runs.cancelSignals(), 1, "sent for the run to check: nothing here names who may cancel")
	page := h.browser(map[string]string{"X-Forwarded-User": "alice"}).do(http.MethodGet, "/runs/run-1", nil, nil)
	require.Equal(t, http.StatusServiceUnavailable, page.StatusCode)
	comment := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))
	require.Equal(t, http.StatusServiceUnavailable, comment.StatusCode)
	require.Contains(t, replyOf(t, comment)["error"], "does not name its pull request")
	require.Empty(t, h.runs.approvalSignals())
}
