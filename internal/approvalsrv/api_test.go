package approvalsrv

import (
	"bytes"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestSignedApproveOfWaitingActionSendsOneSignal(t *testing.T) {
	h := waitingHarness(t, nil, "alice")

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, map[string]string{"status": "signal sent"}, replyOf(t, resp))
	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-1", ArgsHash: act1Hash, Decision: "approve", Approver: "alice", RequestID: "req-1", Channel: "signed API"}},
		h.runs.approvalSignals())
}

func TestSignedRejectCarriesItsReason(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.signedPost(decisionPath, decisionBody(t, "reject", "carol", "too harsh", "req-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ApprovalSignal{{ActionID: "act-1", ArgsHash: act1Hash, Decision: "reject", Approver: "carol", Reason: "too harsh", RequestID: "req-1", Channel: "signed API"}},
		h.runs.approvalSignals())
}

// The list matches logins as GitHub does (ASCII case), but the signal
// names whom the request names, not the list's entry.
func TestSignedApproveForwardsTheApproverTheRequestNamesNotTheListsSpelling(t *testing.T) {
	h := waitingHarness(t, nil, "Alice")

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, "alice", h.runs.approvalSignals()[0].Approver)
}

func TestSignedDecisionWithBadBodyAnswers400AndSendsNothing(t *testing.T) {
	cases := map[string]string{
		"malformed JSON":          `{"decision": "approve",`,
		"not an object":           `["approve"]`,
		"unknown decision":        `{"decision":"maybe","approver":"alice","requestId":"r"}`,
		"missing decision":        `{"approver":"alice","requestId":"r"}`,
		"missing approver":        `{"decision":"approve","requestId":"r"}`,
		"missing requestId":       `{"decision":"approve","approver":"alice"}`,
		"reject without reason":   `{"decision":"reject","approver":"alice","requestId":"r"}`,
		"unknown field":           `{"decision":"approve","approver":"alice","requestId":"r","extra":1}`,
		"data after the object":   `{"decision":"approve","approver":"alice","requestId":"r"} {}`,
		"wrong type":              `{"decision":true,"approver":"alice","requestId":"r"}`,
		"approver with a newline": `{"decision":"approve","approver":"ali\nce","requestId":"r"}`,
		"empty body":              ``,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil)

			resp := h.signedPost(decisionPath, []byte(body), testNow)

			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.NotEmpty(t, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestSignedDecisionWithBadSignatureOrTimestampAnswers401(t *testing.T) {
	body := decisionBody(t, "approve", "alice", "", "req-1")
	now := strconv.FormatInt(testNow.Unix(), 10)
	sign := func(secret, timestamp string, body []byte) string {
		return api.Sign([]byte(secret), timestamp, http.MethodPost, decisionPath, body)
	}
	good := sign(testSecret, now, body)
	cases := map[string]struct{ timestamp, signature string }{
		"no signature header":         {now, ""},
		"empty signature":             {now, "sha256="},
		"wrong algorithm prefix":      {now, "sha1=" + good[len("sha256="):]},
		"no prefix":                   {now, good[len("sha256="):]},
		"not hex":                     {now, "sha256=zz"},
		"signature over another body": {now, sign(testSecret, now, decisionBody(t, "approve", "mallory", "", "req-1"))},
		"signature with another key":  {now, sign("another-secret-0123456789abcdef-xyz", now, body)},
		"timestamp 301 s old":         {strconv.FormatInt(testNow.Add(-301*time.Second).Unix(), 10), ""},
		"timestamp 301 s ahead":       {strconv.FormatInt(testNow.Add(301*time.Second).Unix(), 10), ""},
		"no timestamp":                {"", good},
		"timestamp not a number":      {"yesterday", good},
		"signature for another time":  {strconv.FormatInt(testNow.Unix()-1, 10), good},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil)
			signature := c.signature
			if signature == "" && name != "no signature header" && name != "empty signature" {
				signature = sign(testSecret, c.timestamp, body)
			}
			headers := map[string]string{"Content-Type": "application/json", api.HeaderTimestamp: c.timestamp}
			if name != "no signature header" {
				headers[api.HeaderSignature] = signature
			}

			resp := h.post(decisionPath, body, headers)

			require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
			require.NotEmpty(t, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestSignedDecisionExactlyFiveMinutesOldIsAccepted(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow.Add(-300*time.Second))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
}

func TestSignedDecisionByNonApproverAnswers403(t *testing.T) {
	h := waitingHarness(t, nil, "alice", "bob")

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", "req-1"), testNow)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "mallory is not an approver")
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedDecisionOnUnknownRunOrActionAnswers404(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "approve", "alice", "", "req-1")

	unknownRun := h.signedPost("/v1/runs/run-9/actions/act-1/decision", body, testNow)
	unknownAction := h.signedPost("/v1/runs/run-1/actions/act-9/decision", body, testNow)

	require.Equal(t, http.StatusNotFound, unknownRun.StatusCode)
	require.Equal(t, "unknown run", replyOf(t, unknownRun)["error"])
	require.Equal(t, http.StatusNotFound, unknownAction.StatusCode)
	require.Equal(t, "unknown action for this run", replyOf(t, unknownAction)["error"])
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedDecisionOnDecidedOrExpiredActionAnswers409SayingWhich(t *testing.T) {
	decidedAt := testNow.Add(-10 * time.Minute)
	approved := waitingRun()
	approved.PendingAction.State = api.ActionApproved
	approved.PendingAction.DecidedBy = "bob"
	approved.PendingAction.DecidedAt = &decidedAt
	rejected := waitingRun()
	rejected.PendingAction.State = api.ActionRejected
	rejected.PendingAction.DecidedBy = "carol"
	rejected.PendingAction.DecidedAt = &decidedAt
	expired := waitingRun()
	expired.PendingAction.State = api.ActionExpired
	expired.PendingAction.ExpiresAt = testNow.Add(-time.Hour)
	pastDeadline := waitingRun()
	pastDeadline.PendingAction.ExpiresAt = testNow.Add(-time.Second)
	cases := map[string]struct {
		snap api.RunSnapshot
		want map[string]string
	}{
		"already approved": {approved, map[string]string{
			"error": "the action was already approved by bob at 2025-03-04T11:50:00Z", "state": "approved", "decidedBy": "bob",
		}},
		"already rejected": {rejected, map[string]string{
			"error": "the action was already rejected by carol at 2025-03-04T11:50:00Z", "state": "rejected", "decidedBy": "carol",
		}},
		"expired": {expired, map[string]string{
			"error": "the action expired at 2025-03-04T11:00:00Z without a decision", "state": "expired",
		}},
		"past its deadline, timer late": {pastDeadline, map[string]string{
			"error": "the action expired at 2025-03-04T11:59:59Z without a decision", "state": "expired",
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", c.snap)

			resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)

			require.Equal(t, http.StatusConflict, resp.StatusCode)
			require.Equal(t, c.want, replyOf(t, resp))
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestDecisionOnAnOlderActionOfTheRunAnswers409(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	older := *snap.PendingAction
	older.ID, older.State, older.DecidedBy = "act-0", api.ActionRejected, "bob"
	snap.Actions = append([]api.PendingAction{older}, snap.Actions...)
	h.runs.put("run-1", snap)

	resp := h.signedPost("/v1/runs/run-1/actions/act-0/decision", decisionBody(t, "approve", "alice", "", "req-1"), testNow)

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, "the action was already rejected by bob", replyOf(t, resp)["error"])
}

func TestSignedDecisionOverSixtyFourKiBAnswers413(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "reject", "alice", string(bytes.Repeat([]byte("x"), 64<<10)), "req-1")

	resp := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedDecisionIsJSONWhateverItsCharsetAndNothingElse(t *testing.T) {
	for contentType, want := range map[string]struct{ code, signals int }{
		"text/plain":                      {http.StatusUnsupportedMediaType, 0},
		"application/json; charset=utf-8": {http.StatusAccepted, 1},
	} {
		h := waitingHarness(t, nil)
		body := decisionBody(t, "approve", "alice", "", "req-1")

		resp := h.signedPostAs(decisionPath, contentType, body, testNow)

		require.Equal(t, want.code, resp.StatusCode, contentType)
		require.Len(t, h.runs.approvalSignals(), want.signals, contentType)
	}
}

func TestSignedDecisionWhileTemporalIsUnreachableAnswers503AndARetryWorks(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.setUnavailable(true)
	body := decisionBody(t, "approve", "alice", "", "req-1")

	down := h.signedPost(decisionPath, body, testNow)
	require.Equal(t, http.StatusServiceUnavailable, down.StatusCode)
	require.NotContains(t, replyOf(t, down)["error"], "fake")

	h.runs.setUnavailable(false)
	retry := h.signedPost(decisionPath, body, testNow)
	require.Equal(t, http.StatusAccepted, retry.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestRepeatedRequestIDAnswersAsTheFirstAndSendsNothingNew(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "approve", "alice", "", "req-1")

	first := h.signedPost(decisionPath, body, testNow)
	second := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, http.StatusAccepted, second.StatusCode)
	require.Equal(t, replyOf(t, first), replyOf(t, second))
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestRepeatedRefusedRequestAnswersTheSameRefusal(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	body := decisionBody(t, "approve", "mallory", "", "req-1")

	first := h.signedPost(decisionPath, body, testNow)
	h.runs.put("run-1", waitingRun("alice", "mallory"))
	second := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusForbidden, first.StatusCode)
	require.Equal(t, http.StatusForbidden, second.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestRequestIDTheWorkflowAlreadyHasIsRecognisedAfterARestart(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.State = api.ActionApproved
	snap.PendingAction.RequestKeys = []string{api.RequestKey("signed API", "alice", "req-1")}
	h.runs.put("run-1", snap)

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, "signal sent", replyOf(t, resp)["status"])
	require.Empty(t, h.runs.approvalSignals())
}

func TestConcurrentRepeatsOfOneRequestSendOneSignal(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "approve", "alice", "", "req-1")

	codes := make([]int, 8)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = h.signedPost(decisionPath, body, testNow).StatusCode
		}()
	}
	wg.Wait()

	for _, code := range codes {
		require.Equal(t, http.StatusAccepted, code)
	}
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestSecondDecisionWithANewRequestIDAnswers409(t *testing.T) {
	h := waitingHarness(t, nil)

	h.requireTooLateAfterAlice(decisionBody(t, "reject", "bob", "no", "req-2"))
}

// requireTooLateAfterAlice sends alice's approval of act-1 (req-1), then
// later: alice's is the only signal, and later hears that she approved it.
func (h *harness) requireTooLateAfterAlice(later []byte) {
	h.t.Helper()
	alice := h.signedPost(decisionPath, decisionBody(h.t, "approve", "alice", "", "req-1"), testNow)
	second := h.signedPost(decisionPath, later, testNow)

	require.Equal(h.t, http.StatusAccepted, alice.StatusCode)
	require.Equal(h.t, http.StatusConflict, second.StatusCode)
	require.Equal(h.t, "the action was already approved by alice", replyOf(h.t, second)["error"])
	require.Len(h.t, h.runs.approvalSignals(), 1)
}

func TestInsecureDevWithoutSecretAcceptsUnsignedDecisions(t *testing.T) {
	h := newHarness(t, Config{InsecureDev: true}, nil)
	h.runs.put("run-1", waitingRun())

	resp := h.post(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), map[string]string{"Content-Type": "application/json"})

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
}

func TestInsecureDevWithASecretStillChecksSignatures(t *testing.T) {
	cfg := testConfig()
	cfg.InsecureDev = true
	h := newHarness(t, cfg, nil)
	h.runs.put("run-1", waitingRun())

	resp := h.post(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), map[string]string{"Content-Type": "application/json"})

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}
