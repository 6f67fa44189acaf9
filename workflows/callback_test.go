package workflows

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
)

var callbackSecret = []byte("callback-secret-of-at-least-32-bytes!")

// receiver is the system that asked for a run: a real HTTP server that
// answers each delivery as its script says and records what arrived.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []string // one answer per request: "drop" or a status code; past its end, 200
	got    []delivery
}

type delivery struct {
	key      string
	verified error
	body     api.CallbackResult
}

func newReceiver(t *testing.T, script ...string) *receiver {
	rc := &receiver{t: t, script: script}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d := delivery{key: r.Header.Get("Idempotency-Key"), verified: verifyCallback(r, body)}
	_ = json.Unmarshal(body, &d.body)
	rc.mu.Lock()
	answer := "200"
	if n := len(rc.got); n < len(rc.script) {
		answer = rc.script[n]
	}
	seen := false
	for _, g := range rc.got {
		seen = seen || g.key == d.key
	}
	rc.got = append(rc.got, d)
	rc.mu.Unlock()
	switch {
	case answer == "drop":
		// The result arrived; the answer never does.
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	case answer == "409-on-repeat" && seen:
		w.WriteHeader(http.StatusConflict)
	case answer == "409-on-repeat":
		w.WriteHeader(http.StatusOK)
	case answer == "307":
		// A receiver (or whoever answers at its address) points the signed
		// result elsewhere; any path here counts as a delivery.
		w.Header().Set("Location", "/elsewhere")
		w.WriteHeader(http.StatusTemporaryRedirect)
	default:
		code, err := strconv.Atoi(answer)
		require.NoError(rc.t, err)
		w.WriteHeader(code)
	}
}

// verifyCallback checks a delivery as its receiver does: with the key of
// its own origin, derived from the worker's secret (api.CallbackKey).
func verifyCallback(r *http.Request, body []byte) error {
	key, err := api.CallbackKey(callbackSecret, "http://"+r.Host+r.URL.Path)
	if err != nil {
		return err
	}
	return api.VerifySignature(key, r, body, time.Now())
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]delivery(nil), rc.got...)
}

func (rc *receiver) distinctKeys() int {
	keys := map[string]bool{}
	for _, d := range rc.deliveries() {
		keys[d.key] = true
	}
	return len(keys)
}

func (rc *receiver) url() string { return rc.srv.URL + "/hooks/agentrun" }

// callbackHarness is the harness with a worker that allows allowed and signs
// with callbackSecret.
func callbackHarness(t *testing.T, allowed string) *harness {
	t.Helper()
	list, err := api.ParseCallbackAllowList(allowed)
	require.NoError(t, err)
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer(),
		Callbacks: activities.Callbacks{Allowed: list, Secret: callbackSecret}}
	var suite testsuite.WorkflowTestSuite
	return &harness{t: t, env: newRunEnv(&suite, builtin.AgentRun, acts), sandbox: sandbox}
}

func withCallback(url string, deadline time.Duration) api.RunInput {
	in := demoInput()
	in.Callback = &api.Callback{URL: url, Deadline: deadline}
	return in
}

func deliverStep(t *testing.T, snap api.RunSnapshot) api.AgentStep {
	t.Helper()
	for _, st := range snap.Steps {
		if st.ToolName == api.ToolDeliverResult {
			require.Equal(t, api.StepToolCall, st.Type)
			return st
		}
	}
	t.Fatalf("no %s step in %+v", api.ToolDeliverResult, snap.Steps)
	return api.AgentStep{}
}

// completedWithCallback runs a run that posts its comment, with the
// callback, to its end, and returns the final snapshot.
func completedWithCallback(t *testing.T, rc *receiver, deadline time.Duration) api.RunSnapshot {
	t.Helper()
	h := callbackHarness(t, rc.srv.URL+"/hooks/")
	h.approveWhenWaiting()
	h.run(withCallback(rc.url(), deadline))
	require.NoError(t, h.env.GetWorkflowError(), "the run's end never depends on the callback")
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, 1, h.markedComments())
	requireLegalHistory(t, h.events())
	return snap
}

func requireSignedResult(t *testing.T, rc *receiver, status api.RunStatus) {
	t.Helper()
	for _, d := range rc.deliveries() {
		require.NoError(t, d.verified, "every delivery verifies with api.VerifySignature")
		require.Equal(t, api.CallbackIdempotencyKey(testRunID), d.key)
		require.Equal(t, testRunID, d.body.RunID)
		require.Equal(t, status, d.body.Status)
	}
}

func TestResultIsDeliveredOnceMoreWithTheSameKeyAfterTheReceiverDropsTheFirstAnswer(t *testing.T) {
	rc := newReceiver(t, "drop")
	snap := completedWithCallback(t, rc, 0)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 2, st.Attempt)
	require.Len(t, rc.deliveries(), 2)
	require.Equal(t, 1, rc.distinctKeys(), "the receiver sees one result under one key")
	requireSignedResult(t, rc, api.RunCompleted)
	require.NotEmpty(t, rc.deliveries()[0].body.Outcome.Posted, "the result carries the run's outcome")
}

func TestResultIsDeliveredAfterTheReceiverAnswers5xxTwice(t *testing.T) {
	rc := newReceiver(t, "503", "500")
	snap := completedWithCallback(t, rc, 0)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 3, st.Attempt)
	require.Len(t, rc.deliveries(), 3)
	requireSignedResult(t, rc, api.RunCompleted)
}

// A 409 to a repeat of the run's own key can only mean the receiver holds
// the result an earlier attempt sent (its answer was lost): delivered.
func TestConflictToARepeatedKeyCountsAsDelivered(t *testing.T) {
	rc := newReceiver(t, "drop", "409-on-repeat")
	snap := completedWithCallback(t, rc, 0)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	var receipt api.CallbackReceipt
	require.NoError(t, json.Unmarshal(st.SafeOutput, &receipt))
	require.Equal(t, api.CallbackReceipt{StatusCode: http.StatusConflict, Attempt: 2, AlreadyHad: true}, receipt)
	require.Equal(t, 1, rc.distinctKeys())
}

func TestBadRequestFailsTheDeliveryForGoodAndLeavesTheRunCompleted(t *testing.T) {
	rc := newReceiver(t, "400")
	snap := completedWithCallback(t, rc, 0)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "refused the result with 400")
	require.Len(t, rc.deliveries(), 1, "a 4xx is not retried")
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome, "a failed delivery does not degrade the run")
}

// TestARedirectOfTheResultIsNotFollowedAndFailsTheDelivery: the allow-list
// is checked on the URL the run was given; following a 307 would send the
// signed result to a Location nobody allowed.
func TestARedirectOfTheResultIsNotFollowedAndFailsTheDelivery(t *testing.T) {
	rc := newReceiver(t, "307")
	snap := completedWithCallback(t, rc, 0)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Len(t, rc.deliveries(), 1, "the redirect was followed or retried")
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
}

func TestTooManyRequestsIsRetried(t *testing.T) {
	rc := newReceiver(t, "429", "408")
	st := deliverStep(t, completedWithCallback(t, rc, 0))
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Len(t, rc.deliveries(), 3)
}

func TestDeliveryGivesUpAtItsDeadlineAndTheRunStaysCompleted(t *testing.T) {
	script := make([]string, 1000)
	for i := range script {
		script[i] = "503"
	}
	rc := newReceiver(t, script...)
	snap := completedWithCallback(t, rc, time.Hour)

	st := deliverStep(t, snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "result not delivered")
	n := len(rc.deliveries())
	// 1s, 2s, 4s ... then every 10 minutes: about a dozen tries in an hour.
	require.Greater(t, n, 5)
	require.Less(t, n, 30)
}

func TestCallbackOutsideTheWorkersAllowListIsNeverPosted(t *testing.T) {
	rc := newReceiver(t)
	h := callbackHarness(t, "https://hooks.example.com/")
	h.approveWhenWaiting()
	h.run(withCallback(rc.url(), 0))
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	st := deliverStep(t, snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "this worker refuses the URL")
	failed := eventsWith(h.events(), func(e api.Event) bool { return e.StepID == st.ID && e.Status == string(api.StepFailed) })
	require.Len(t, failed, 1, "the refusal shows in the run's events")
	require.Empty(t, rc.deliveries())
}

func TestCancelledRunDeliversItsCancellation(t *testing.T) {
	rc := newReceiver(t)
	h := callbackHarness(t, rc.srv.URL+"/hooks/")
	h.whenWaiting(time.Minute, func(string) { h.env.CancelWorkflow() })
	h.run(withCallback(rc.url(), 0))

	snap := h.snapshot()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.StepSucceeded, deliverStep(t, snap).Status)
	require.Len(t, rc.deliveries(), 1)
	requireSignedResult(t, rc, api.RunCancelled)
	require.Equal(t, 0, h.markedComments())
}

func TestRunWithoutACallbackHasNoDeliveryStep(t *testing.T) {
	h := newHarness(t)
	h.approveWhenWaiting()
	h.run(demoInput())
	for _, st := range h.snapshot().Steps {
		require.NotEqual(t, api.ToolDeliverResult, st.ToolName)
	}
}
