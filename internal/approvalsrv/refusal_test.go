package approvalsrv

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

type runsSpy struct {
	signals []api.RefusalSignal
	err     error
}

func (r *runsSpy) Refuse(_ context.Context, _ string, sig api.RefusalSignal) error {
	if r.err != nil {
		return r.err
	}
	r.signals = append(r.signals, sig)
	return nil
}

var (
	quiet = slog.New(slog.NewTextHandler(io.Discard, nil))
	now   = time.Date(2025, 3, 4, 12, 0, 0, 500, time.UTC)
)

func TestKeeperSignalsAtMostTwentyRefusalsPerRunAndKeepsTheLatestFifty(t *testing.T) {
	runs := &runsSpy{}
	k := newKeeper(runs, func() time.Time { return now })

	for i := 1; i <= perRun+5; i++ {
		k.Record(context.Background(), quiet, "run-1", refusal{Who: fmt.Sprint("u", i), Reason: "no"}, true)
	}

	require.Len(t, runs.signals, signalsPerRun)
	kept := k.Since("run-1", 0)
	require.Len(t, kept, perRun)
	require.Equal(t, "u6", kept[0].Who, "the oldest are dropped")
	require.Equal(t, int64(perRun+5), k.Last("run-1"))
	require.True(t, kept[signalsPerRun-6].Recorded)
	require.False(t, kept[signalsPerRun-5].Recorded, "past the cap a refusal is only kept here")
	require.Equal(t, now.Truncate(time.Second), kept[0].At)
	require.Len(t, k.Since("run-1", int64(perRun+3)), 2)
}

func TestKeeperRecordsInTheRunOnlyWhenAskedAndWhenTheRunTakesIt(t *testing.T) {
	runs := &runsSpy{}
	k := newKeeper(runs, func() time.Time { return now })

	k.Record(context.Background(), quiet, "run-1", refusal{Who: "anonymous"}, false)
	runs.err = fmt.Errorf("closed: %w", runclient.ErrRunNotFound)
	k.Record(context.Background(), quiet, "run-1", refusal{Who: "late"}, true)

	require.Empty(t, runs.signals)
	for _, r := range k.Since("run-1", 0) {
		require.False(t, r.Recorded, r.Who)
	}
	require.Zero(t, k.Last("run-2"))
	require.Empty(t, k.Since("run-2", 0))
}

func TestLogForgetsTheOldestRunsPastItsBound(t *testing.T) {
	l := newRefusalLog(2, 2)
	for _, run := range []string{"run-1", "run-2", "run-3"} {
		l.add(run, refusal{Who: run})
	}
	require.Empty(t, l.since("run-1", 0))
	require.Len(t, l.since("run-3", 0), 1)

	b := newRefusalSignalBudget(1, 1)
	require.True(t, b.take("run-1"))
	require.False(t, b.take("run-1"))
	require.True(t, b.take("run-2"))
	require.True(t, b.take("run-1"), "a forgotten run gets its allowance again")
}

func TestSignedDecisionByNonApproverIsRecordedInTheRun(t *testing.T) {
	h := waitingHarness(t, nil, "alice")

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", "req-1"), testNow)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, []api.RefusalSignal{{
		ActionID: "act-1", Who: "mallory", Channel: "signed API", Reason: "mallory is not an approver of this run",
	}}, h.runs.refusalSignals())
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedDecisionOnADecidedActionIsRecordedInTheRun(t *testing.T) {
	h := waitingHarness(t, nil)

	first := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow)
	second := h.signedPost(decisionPath, decisionBody(t, "reject", "bob", "no", "req-2"), testNow)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, http.StatusConflict, second.StatusCode)
	require.Equal(t, []api.RefusalSignal{{
		ActionID: "act-1", Who: "bob", Channel: "signed API", Reason: "the action was already approved by alice",
	}}, h.runs.refusalSignals())
}

func TestUnauthenticatedOrMalformedDecisionsAreNeverRecordedInTheRun(t *testing.T) {
	body := decisionBody(t, "approve", "mallory", "", "req-1")
	stamp := strconv.FormatInt(testNow.Unix(), 10)
	cases := map[string]struct {
		body    string
		headers map[string]string
		want    int
	}{
		"bad signature": {string(body), map[string]string{
			"Content-Type": "application/json", api.HeaderTimestamp: stamp, api.HeaderSignature: api.Sign([]byte("not-the-secret-0123456789"), stamp, http.MethodPost, decisionPath, body),
		}, http.StatusUnauthorized},
		"no signature":   {string(body), map[string]string{"Content-Type": "application/json", api.HeaderTimestamp: stamp}, http.StatusUnauthorized},
		"malformed body": {`{"decision":"approve","approver":"mallory"}`, nil, http.StatusBadRequest},
		"unknown field":  {`{"decision":"approve","approver":"mallory","requestId":"r","x":1}`, nil, http.StatusBadRequest},
		"too large": {string(decisionBody(t, "reject", "mallory", strings.Repeat("x", 64<<10), "req-1")), nil,
			http.StatusRequestEntityTooLarge},
		"not JSON": {string(body), map[string]string{
			"Content-Type": "text/plain", api.HeaderTimestamp: stamp, api.HeaderSignature: api.Sign([]byte(testSecret), stamp, http.MethodPost, decisionPath, body),
		}, http.StatusUnsupportedMediaType},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil, "alice")

			var resp *http.Response
			if c.headers == nil {
				resp = h.signedPost(decisionPath, []byte(c.body), testNow)
			} else {
				resp = h.post(decisionPath, []byte(c.body), c.headers)
			}

			require.Equal(t, c.want, resp.StatusCode)
			require.Empty(t, h.runs.refusalSignals())
		})
	}
}

func TestWebhookRefusalsAreRecordedInTheRunOnlyForAuthenticatedCommands(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	command := newComment("mallory", "/agentrun approve act-1").payload(t)

	forged := h.post("/github/webhook", command, map[string]string{
		"Content-Type": "application/json", "X-GitHub-Event": "issue_comment", "X-GitHub-Delivery": "d-0",
		"X-Hub-Signature-256": testkit.GitHubSignature("not-the-secret", command),
	})
	malformed := h.deliver("issue_comment", "d-1", newComment("mallory", "/agentrun reject act-1").payload(t))
	require.Equal(t, http.StatusUnauthorized, forged.StatusCode)
	require.Equal(t, http.StatusBadRequest, malformed.StatusCode)
	require.Empty(t, h.runs.refusalSignals())

	reader := h.deliver("issue_comment", "d-2", command)

	require.Equal(t, http.StatusForbidden, reader.StatusCode)
	require.Equal(t, []api.RefusalSignal{{
		ActionID: "act-1", Who: "mallory", Channel: "GitHub comment",
		Reason: "mallory has read permission on acme/widgets; approving needs write",
	}}, h.runs.refusalSignals())
}

func TestFormRefusalIsRecordedInTheRunButAFormWithoutCSRFTokenIsNot(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "mallory"})
	_, form := b.openRun("run-1")
	form.Set("decision", "approve")
	forged := url.Values{"decision": {"approve"}, "requestId": {"web-forged"}, "csrf": {"forged"}}

	noToken := b.submit(decisionPagePath, forged, nil)
	require.Equal(t, http.StatusForbidden, noToken.StatusCode)
	require.Empty(t, h.runs.refusalSignals())

	resp := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	signals := h.runs.refusalSignals()
	require.Len(t, signals, 1)
	require.Equal(t, "web page", signals[0].Channel)
	require.Equal(t, "mallory", signals[0].Who)
}

func TestRefusalSignalsStopAtTwentyPerRunAndTheAnswersDoNotChange(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	h.runs.put("run-2", waitingRun("alice"))

	for i := 0; i < 25; i++ {
		resp := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", fmt.Sprintf("req-%d", i)), testNow)
		require.Equal(t, http.StatusForbidden, resp.StatusCode)
	}
	other := h.signedPost("/v1/runs/run-2/actions/act-1/decision", decisionBody(t, "approve", "mallory", "", "req-x"), testNow)

	require.Equal(t, http.StatusForbidden, other.StatusCode)
	require.Len(t, h.runs.refusalSignals(), 21, "20 for run-1, then run-2 has its own allowance")
	page := readAll(t, h.get("/runs/run-1", nil))
	require.Equal(t, 25, strings.Count(page, "mallory is not an approver of this run"),
		"the refusals past the cap are still shown from memory")
}

func TestRefusalSignalThatFailsLeavesTheAnswerAndShowsTheRefusalFromMemory(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	h.runs.setRefusalsFail(true)

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", "req-1"), testNow)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, "mallory is not an approver of this run", replyOf(t, resp)["error"])
	page := readAll(t, h.get("/runs/run-1", nil))
	require.Equal(t, 1, strings.Count(page, "mallory is not an approver of this run"))
	require.Contains(t, page, "signed API · mallory")
}

func TestRefusalIsShownOnceOnThePageAndStillAfterARestart(t *testing.T) {
	h := waitingHarness(t, sandboxPermissions(t))
	resp := h.deliver("issue_comment", "d-1", newComment("mallory", "/agentrun approve act-1").payload(t))
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	const reason = "mallory has read permission on acme/widgets; approving needs write"

	before := readAll(t, h.get("/runs/run-1", asSandboxReader))
	restarted := newHarnessOn(t, testConfig(), sandboxPermissions(t), h.runs)
	after := readAll(t, restarted.get("/runs/run-1/panel", asSandboxReader))

	require.Equal(t, 1, strings.Count(before, reason), "the in-memory and the recorded refusal are one")
	require.Equal(t, 1, strings.Count(after, reason))
	require.Contains(t, after, `recorded in the run · <code>act-1</code>: <span class="refusal-reason">refused by the approval server (GitHub comment)`)
}

func TestRunPageListsWhatTheRunIgnoredNewestFirst(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1",
		api.Event{Sequence: 1, At: testNow.Add(-time.Minute), Type: api.EventSignalIgnored, Detail: `approval for unknown action "act-9"`},
		api.Event{Sequence: 2, At: testNow, Type: api.EventSignalIgnored, StepID: "step-3", Detail: "duplicate: the action was already approved by alice"},
		api.Event{Sequence: 3, At: testNow, Type: api.EventStepStatus, StepID: "step-3", Status: "running"},
	)

	page := readAll(t, h.get("/runs/run-1", nil))

	duplicate := strings.Index(page, "duplicate: the action was already approved by alice")
	unknown := strings.Index(page, `approval for unknown action &#34;act-9&#34;`)
	require.Positive(t, duplicate)
	require.Greater(t, unknown, duplicate, "newest first")
	require.Contains(t, page, `recorded in the run · <code>act-1</code>: <span class="refusal-reason">duplicate`)
}
