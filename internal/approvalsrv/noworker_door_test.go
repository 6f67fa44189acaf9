package approvalsrv

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// The door's checks of a person's command while no worker answers: who the
// run's memo names, whom the per-run cap lets through, and when the caps
// and the answers they gave are forgotten.

// setLive has a worker answer the run query again (live) or not.
func (f *fakeRuns) setLive(live bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.snapshotsUnavailable = !live
}

// putRequestedBy puts run-1 as waitingRun(approvers...) requested by
// requester.
func (h *harness) putRequestedBy(requester string, approvers ...string) {
	snap := waitingRun(approvers...)
	snap.Run.UserID = requester
	h.runs.put("run-1", snap)
}

// A run not on a pull request (the recommender's, the ticket example's)
// names no repository, but its memo names its requester and approvers:
// with no worker, its page is shown to them, and its cancel is checked
// against them, as a pull request run's is.
func TestARunNotOnAPullRequestWithNoWorkerIsCheckedAgainstItsMemo(t *testing.T) {
	h := noWorkerHarness(t, nil)
	snap := waitingRun("alice")
	snap.Run.Repo, snap.Run.PullNumber, snap.Run.UserID = "", 0, "carol"
	snap.Run.Target = &api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "support"}}
	h.runs.put("run-1", snap)

	code, page := h.pageAs("carol", "/runs/run-1")
	require.Equal(t, http.StatusOK, code, "the requester reads the run's last known state")
	require.Contains(t, page, "No worker is answering for this run")
	stranger := h.signedPost(cancelPath, cancelBody(t, "mallory", "mine now", "m-1"), testNow)
	require.Equal(t, http.StatusForbidden, stranger.StatusCode, "the memo names who may cancel")
	requireSignalRecorded(t, h.signedPost(cancelPath, cancelBody(t, "carol", "not needed", "c-1"), testNow))

	require.Equal(t, []api.CancelSignal{{By: "carol", Reason: "not needed", RequestID: "c-1", Channel: channelAPI}}, h.runs.cancelSignals())
}

// requireSignalRecorded is requireRecorded on any run: the answer says the
// command waits for a worker, whatever the run was last known doing.
func requireSignalRecorded(t *testing.T, resp *http.Response) {
	t.Helper()
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, runclient.RecordedNote, replyOf(t, resp)["status"])
}

// On a run that names no approvers, the page's readers may not approve;
// with no worker, nothing but the door can tell them so before their
// decisions are recorded, and those decisions must not fill the run's cap
// that the requester's cancel needs.
func TestReadersDecisionsOnThePageWithNoWorkerNeitherRecordNorCrowdOutTheRequester(t *testing.T) {
	h := noWorkerHarness(t, nil) // everyone reads acme/widgets; nobody writes
	h.putRequestedBy("carol")

	for reader := range 5 {
		b := h.browser(map[string]string{"X-Forwarded-User": fmt.Sprintf("reader-%d", reader)})
		_, form := b.openRun("run-1")
		for i := range uncheckedPerPerson {
			form.Set("decision", "approve")
			form.Set("requestId", fmt.Sprintf("r%d-%d", reader, i))
			resp := b.submit(decisionPagePath, form, nil)
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], "approving needs write")
		}
	}
	require.Empty(t, h.runs.approvalSignals(), "nothing the run would refuse is recorded")

	owner := h.browser(map[string]string{"X-Forwarded-User": "carol"})
	_, form := owner.openRun("run-1")
	cancel := url.Values{"csrf": {form.Get("csrf")}, "requestId": {"carol-1"}, "reason": {"not needed"}}
	requireSignalRecorded(t, owner.submit("/runs/run-1/cancel", cancel, nil))
	require.Len(t, h.runs.cancelSignals(), 1)
}

// The per-run cap bounds the commands nothing here could check (a signed
// caller names the person itself on a run without approvers); a command
// from someone the run's rules accept (its requester's cancel) still goes
// through, and the commands the cap refused were not charged to anyone.
func TestAFullRunCapStillLetsThroughTheRequestersCancel(t *testing.T) {
	h := noWorkerHarness(t, nil)
	h.putRequestedBy("carol")

	for i := range uncheckedPerRun {
		requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", fmt.Sprintf("name-%d", i), "", fmt.Sprintf("r-%d", i)), testNow))
	}
	for i := range uncheckedPerPerson {
		over := h.signedPost(decisionPath, decisionBody(t, "approve", "carol", "", fmt.Sprintf("carol-%d", i)), testNow)
		require.Equal(t, http.StatusTooManyRequests, over.StatusCode)
		require.Contains(t, replyOf(t, over)["error"], "this run already has")
	}

	requireSignalRecorded(t, h.signedPost(cancelPath, cancelBody(t, "carol", "not needed", "c-1"), testNow))
	require.Len(t, h.runs.cancelSignals(), 1)
}

// A worker that answered for the run has applied what was recorded: the
// caps start again for the next outage.
func TestTheCapsAreForgottenOnceAWorkerAnswersForTheRun(t *testing.T) {
	h := noWorkerHarness(t, nil, "alice")
	for i := range uncheckedPerPerson {
		requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", fmt.Sprintf("flood-%d", i)), testNow))
	}
	require.Equal(t, http.StatusTooManyRequests, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "over"), testNow).StatusCode)

	h.runs.setLive(true)
	code, _ := h.pageAs("alice", "/runs/run-1")
	require.Equal(t, http.StatusOK, code)
	h.runs.setLive(false)

	requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "next-outage"), testNow))
}

// A 429 says "not now": the same request, retried once a worker answers,
// is acted on, on the signed API and for a GitHub comment alike; the
// answer says when to retry.
func TestACappedRequestIsNotRememberedAndSaysWhenToRetry(t *testing.T) {
	t.Run("signed API", func(t *testing.T) {
		h := noWorkerHarness(t, nil, "alice")
		for i := range uncheckedPerPerson {
			requireRecorded(t, h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", fmt.Sprintf("flood-%d", i)), testNow))
		}
		over := decisionBody(t, "reject", "alice", "changed my mind", "over")
		capped := h.signedPost(decisionPath, over, testNow)
		require.Equal(t, http.StatusTooManyRequests, capped.StatusCode)
		require.Equal(t, fmt.Sprint(int(uncheckedRetryAfter.Seconds())), capped.Header.Get("Retry-After"))

		h.runs.setLive(true)

		retried := h.signedPost(decisionPath, over, testNow)
		require.Equal(t, http.StatusAccepted, retried.StatusCode)
		require.Equal(t, statusSignalSent, replyOf(t, retried)["status"])
	})
	t.Run("GitHub comment", func(t *testing.T) {
		h := noWorkerHarness(t, sandboxPermissions(t), "alice")
		comment := func(id int64) []byte {
			c := newComment("alice", "/agentrun approve act-1")
			c.commentID = id
			return c.payload(t)
		}
		for i := range uncheckedPerPerson {
			requireRecorded(t, h.deliver("issue_comment", fmt.Sprintf("d-%d", i), comment(int64(i+1))))
		}
		capped := h.deliver("issue_comment", "d-over", comment(99))
		require.Equal(t, http.StatusTooManyRequests, capped.StatusCode)
		require.NotEmpty(t, capped.Header.Get("Retry-After"))

		h.runs.setLive(true)

		redelivered := h.deliver("issue_comment", "d-over", comment(99))
		require.Equal(t, http.StatusAccepted, redelivered.StatusCode)
		require.Equal(t, statusSignalSent, replyOf(t, redelivered)["status"])
	})
}

// A push while no worker answers: the previous head's review is read from
// its last known state, within the precheck's bound, and the review it
// posted (which its memo names once it ended) is marked superseded by the
// new one; the new one reads only what the push added.
func TestAPushWithNoWorkerStillSupersedesThePostedReview(t *testing.T) {
	h := newHarness(t, autoReview(t, "acme/widgets"), nil)
	h.runs.setLive(false)
	prev := PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent)
	h.runs.put(prev, api.RunSnapshot{
		Run:     api.Run{Repo: "acme/widgets", PullNumber: 1, Status: api.RunCompleted, ReviewedHead: strings.Repeat("a", 40)},
		Outcome: api.Outcome{Posted: []api.PostedOutcome{{StepID: "step-5", Tool: api.ToolCreateIssueComment, CommentID: 77}}},
	})
	h.runs.setEnded(prev)
	next := strings.Repeat("d", 40)
	payload := exampleDelivery(t, "synchronize", func(s string) string {
		s = strings.Replace(s, `"before": "`, `"before": "`+sandboxHead+`", "x_before": "`, 1)
		return strings.ReplaceAll(s, `"sha": "`+sandboxHead+`"`, `"sha": "`+next+`"`)
	})

	require.Equal(t, http.StatusAccepted, h.deliver("pull_request", "d-1", payload).StatusCode)

	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, &api.SupersededReview{Run: prev, CommentID: 77}, starts[0].Input.Supersedes)
	require.Equal(t, sandboxHead, starts[0].Input.ReviewedHead)
	require.Equal(t, 1, h.runs.reachCount(), "read through Reach, bounded by the precheck")
}

// The caps remember a bounded number of runs, the oldest forgotten first,
// and forgetting one run leaves the others' counts.
func TestTheCapsRememberABoundedNumberOfRuns(t *testing.T) {
	u := newUncheckedCommands(2)
	fill := func(runID string) {
		for range uncheckedPerPerson {
			require.Equal(t, capNone, u.take(runID, "alice", true))
		}
		require.Equal(t, capPerson, u.take(runID, " Alice ", true), "the person's cap, whatever the spelling")
	}
	fill("run-1")
	fill("run-2")
	u.forget("run-2")
	require.Equal(t, capNone, u.take("run-2", "alice", true), "forgotten: a worker answered for it")
	require.Equal(t, capPerson, u.take("run-1", "alice", true), "the other run's counts stay")
	fill("run-3")
	require.Equal(t, capNone, u.take("run-1", "alice", true), "the oldest run past the bound is forgotten")
	require.Len(t, u.runs, 2)
}

// A batch is vouched for only when each of its actions is: with no worker,
// a part that no rule accepted here counts the whole batch against the
// run's cap, and on the page a reader's batch is refused.
func TestABatchWithNoWorkerIsVettedOnlyWhenEachPartIs(t *testing.T) {
	h := noWorkerHarness(t, nil)
	snap := twoWaitingRun(true)
	snap.Actions[0].Approvers = []string{"alice"} // act-2 names none, nor does the run
	h.runs.put("run-1", snap)
	for i := range uncheckedPerRun {
		body := decisionBody(t, "approve", fmt.Sprintf("name-%d", i), "", fmt.Sprintf("r-%d", i))
		requireSignalRecorded(t, h.signedPost("/v1/runs/run-1/actions/act-2/decision", body, testNow))
	}

	batch := h.signedPost(batchPath, batchBody(t, "alice", "b-1", bothActions...), testNow)
	require.Equal(t, http.StatusTooManyRequests, batch.StatusCode, "act-2's part is no listed approver's")

	b := h.browser(map[string]string{"X-Forwarded-User": "reader"})
	_, hidden := b.openRun("run-1")
	form := url.Values{"csrf": {hidden.Get("csrf")}, "requestId": {"web-1"}, "decision": {"approve"},
		"actionId": {"act-1", "act-2"}, "argsHash": {act1Hash, act2Hash}}
	require.Equal(t, http.StatusForbidden, b.submit(batchPagePath, form, nil).StatusCode)
	require.Len(t, h.runs.approvalSignals(), uncheckedPerRun)
}
