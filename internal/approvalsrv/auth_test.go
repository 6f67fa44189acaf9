package approvalsrv

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// A signature binds the method and the path: a request captured on its way to
// one run cannot be replayed to another run, action, step or endpoint.
func TestSignedDecisionReplayedToAnotherRunOrActionAnswers401AndSendsNothing(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	h.runs.put("run-2", waitingRun("alice"))
	body := decisionBody(t, "approve", "alice", "", "req-1")
	captured := signedHeaders(http.MethodPost, decisionPath, body, testNow)
	captured["Content-Type"] = "application/json"

	for _, path := range []string{
		"/v1/runs/run-2/actions/act-1/decision",
		"/v1/runs/run-1/actions/act-2/decision",
		"/v1/runs/run-1/steps/step-3/resolve",
	} {
		resp := h.post(path, body, captured)

		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		require.Equal(t, "signature does not match", replyOf(t, resp)["error"], path)
	}
	require.Empty(t, h.runs.approvalSignals())
	require.Empty(t, h.runs.resolveSignals())

	require.Equal(t, http.StatusAccepted, h.post(decisionPath, body, captured).StatusCode, "the capture is good where it was signed")
}

func TestSignedResolveReplayedToAnotherStepOrRunAnswers401AndSendsNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", runWithUnknownOutcome())
	h.runs.put("run-2", runWithUnknownOutcome())
	body := resolveBody(t, "retry", "ops", "r-1")
	captured := signedHeaders(http.MethodPost, resolvePath, body, testNow)
	captured["Content-Type"] = "application/json"

	for _, path := range []string{"/v1/runs/run-2/steps/step-4/resolve", "/v1/runs/run-1/steps/step-3/resolve"} {
		require.Equal(t, http.StatusUnauthorized, h.post(path, body, captured).StatusCode, path)
	}
	require.Empty(t, h.runs.resolveSignals())
}

// A comparison that stopped early (first byte, or a prefix) would accept it.
func TestSignatureDifferingOnlyInItsLastByteAnswers401(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "approve", "alice", "", "req-1")
	headers := signedHeaders(http.MethodPost, decisionPath, body, testNow)
	headers["Content-Type"] = "application/json"
	good := headers[api.HeaderSignature]
	last := good[len(good)-1]
	flipped := byte('0')
	if last == '0' {
		flipped = '1'
	}
	headers[api.HeaderSignature] = good[:len(good)-1] + string(flipped)

	resp := h.post(decisionPath, body, headers)

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedGetSignsAnEmptyBodyAndItsOwnMethod(t *testing.T) {
	h := waitingHarness(t, nil)
	const path = "/v1/runs/run-1"

	cases := map[string]struct {
		headers map[string]string
		want    int
	}{
		"GET without a body":     {signedHeaders(http.MethodGet, path, nil, testNow), http.StatusOK},
		"signed as a POST":       {signedHeaders(http.MethodPost, path, nil, testNow), http.StatusUnauthorized},
		"signed with a body":     {signedHeaders(http.MethodGet, path, []byte("{}"), testNow), http.StatusUnauthorized},
		"signed for another run": {signedHeaders(http.MethodGet, "/v1/runs/run-2", nil, testNow), http.StatusUnauthorized},
		"unsigned":               {nil, http.StatusUnauthorized},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, c.want, h.getAnonymous(path, c.headers).StatusCode)
		})
	}
}

// The path is signed as it goes on the wire, escaped, so that client and
// server agree on it byte for byte.
func TestSignatureCoversTheEscapedPath(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run:1", waitingRun())
	const escaped = "/v1/runs/run%3A1" // a client may escape what needs none

	require.Equal(t, http.StatusOK, h.getAnonymous(escaped, signedHeaders(http.MethodGet, escaped, nil, testNow)).StatusCode)
	require.Equal(t, http.StatusUnauthorized, h.getAnonymous(escaped, signedHeaders(http.MethodGet, "/v1/runs/run:1", nil, testNow)).StatusCode)
}

// Each route class refuses a caller without its credentials and serves one
// with them; the public routes need none.
func TestEachRouteClassNeedsItsCredentials(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", finished(1)) // the event streams end at once

	for _, path := range []string{
		"/v1/runs/run-1", "/v1/runs/run-1/events", "/v1/approvals",
		"/", "/runs", "/runs?status=completed", "/runs/run-1", "/runs/run-1/panel", "/runs/run-1/events",
	} {
		t.Run(path, func(t *testing.T) {
			anonymous := h.getAnonymous(path, nil)
			require.Equal(t, http.StatusUnauthorized, anonymous.StatusCode)
			require.NotContains(t, readAll(t, anonymous), "Looks good, but", "nothing of the run leaks")

			require.Equal(t, http.StatusOK, h.get(path, nil).StatusCode)
		})
	}
	for _, path := range []string{"/healthz", "/static/app.css"} {
		require.Equal(t, http.StatusOK, h.getAnonymous(path, nil).StatusCode, path)
	}
	// The webhook is authenticated by GitHub's signature alone.
	delivery := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve act-1").payload(t))
	require.NotEqual(t, http.StatusUnauthorized, delivery.StatusCode)
}

func TestSignatureDoesNotOpenThePagesNorTheProxyIdentityTheAPI(t *testing.T) {
	h := waitingHarness(t, nil)

	signedForPage := signedHeaders(http.MethodGet, "/runs/run-1", nil, testNow)
	require.Equal(t, http.StatusUnauthorized, h.getAnonymous("/runs/run-1", signedForPage).StatusCode)
	require.Equal(t, http.StatusUnauthorized, h.getAnonymous("/v1/runs/run-1", map[string]string{"X-Forwarded-User": "alice"}).StatusCode)
}

func TestDevModeReadsNeedNoCredentials(t *testing.T) {
	h := newHarness(t, Config{InsecureDev: true}, nil)
	h.runs.put("run-1", waitingRun())

	for _, path := range []string{"/v1/runs/run-1", "/v1/approvals", "/", "/runs", "/runs/run-1", "/runs/run-1/panel"} {
		require.Equal(t, http.StatusOK, h.getAnonymous(path, nil).StatusCode, path)
	}
}

// Anyone can type the identity header; only the login proxy's is believed.
func TestIdentityHeaderFromAnUntrustedPeerAnswers401AndDecidesNothing(t *testing.T) {
	cfg := testConfig()
	cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")} // not the test's loopback
	h := newHarness(t, cfg, nil)
	h.runs.put("run-1", waitingRun("alice"))
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})

	page := b.do(http.MethodGet, "/runs/run-1", nil, nil)
	form := url.Values{"decision": {"approve"}, "requestId": {"r-1"}, "csrf": {"x"}}
	post := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusUnauthorized, page.StatusCode)
	require.NotContains(t, readAll(t, page), "Signed in as")
	require.Equal(t, http.StatusUnauthorized, post.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestIdentityHeaderRepeatedOrUnusableAnswers400(t *testing.T) {
	h := waitingHarness(t, nil, "alice")

	for name, values := range map[string][]string{
		"two headers":          {"alice", "mallory"},
		"two values in one":    {"mallory, alice"},
		"two identical copies": {"alice", "alice"},
		"over 100 characters":  {strings.Repeat("a", 101)},
	} {
		t.Run(name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, h.http.URL+"/runs/run-1", nil)
			require.NoError(t, err)
			req.Header["X-Forwarded-User"] = values
			resp, err := h.http.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()

			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
		})
	}
}

// With a login proxy configured, even dev mode takes the approver from it
// and never from the form.
func TestFormApproverIsTheAuthenticatedIdentityEvenInDevMode(t *testing.T) {
	cfg := Config{InsecureDev: true, IdentityHeader: "X-Forwarded-User", TrustedProxies: loopbackProxies()}
	h := newHarness(t, cfg, nil)
	h.runs.put("run-1", waitingRun("alice", "mallory"))

	anonymous := h.browser(nil)
	page, form := anonymous.openRun("run-1")
	require.NotContains(t, page, `name="approver"`, "no typed name while a proxy names the user")
	form.Set("decision", "reject")
	form.Set("reason", "no")
	form.Set("approver", "mallory")
	refused := anonymous.submit(decisionPagePath, form, nil)
	require.Equal(t, http.StatusForbidden, refused.StatusCode)
	require.Contains(t, replyOf(t, refused)["error"], "no signed-in user")

	alice := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	_, form = alice.openRun("run-1")
	form.Set("decision", "approve")
	form.Set("approver", "mallory")
	require.Equal(t, http.StatusAccepted, alice.submit(decisionPagePath, form, nil).StatusCode)

	signals := h.runs.approvalSignals()
	require.Len(t, signals, 1)
	require.Equal(t, "alice", signals[0].Approver)
}

// Dev mode's CSRF key is random, so a page from before a restart carries a
// token the new process cannot check; that is a stale page, not a refusal.
func TestFormFromBeforeARestartSaysThePageIsOutOfDate(t *testing.T) {
	cfg := Config{InsecureDev: true}
	before := newHarness(t, cfg, nil)
	before.runs.put("run-1", waitingRun())
	old := before.browser(nil)
	_, form := old.openRun("run-1")
	form.Set("decision", "approve")
	form.Set("approver", "dana")
	after := newHarnessOn(t, cfg, nil, before.runs)
	b := after.browser(nil)
	oldURL, err := url.Parse(before.http.URL)
	require.NoError(t, err)
	newURL, err := url.Parse(after.http.URL)
	require.NoError(t, err)
	b.client.Jar.SetCookies(newURL, old.client.Jar.Cookies(oldURL))

	resp := b.do(http.MethodPost, decisionPagePath, form, nil)

	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	page := readAll(t, b.do(http.MethodGet, resp.Header.Get("Location"), nil, nil))
	require.Contains(t, page, "This page is out of date; reload it")
	require.NotContains(t, page, "You may not decide this action")
	require.Empty(t, before.runs.approvalSignals())
}

func TestWebhookAddressMovesTheWebhookOffTheMainHandler(t *testing.T) {
	cfg := testConfig()
	cfg.WebhookAddr = "127.0.0.1:8081"
	h := newHarness(t, cfg, sandboxPermissions(t))
	h.runs.put("run-1", waitingRun("alice"))
	hook := httptest.NewServer(h.server.WebhookHandler())
	t.Cleanup(hook.Close)
	payload := newComment("alice", "/agentrun approve act-1").payload(t)

	onMain := h.deliver("issue_comment", "d-1", payload)
	require.Equal(t, http.StatusNotFound, onMain.StatusCode)

	h.http = hook // deliver through the webhook's own listener
	onHook := h.deliver("issue_comment", "d-1", payload)
	require.Equal(t, http.StatusAccepted, onHook.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
	require.Equal(t, http.StatusNotFound, h.getAnonymous("/v1/approvals", nil).StatusCode, "the webhook listener serves nothing else")
}

func TestRunPageEventStreamIsTheRunsEvents(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", runEvents(1, 2)...)
	h.runs.appendEvents("run-1", finished(3))

	messages := readSSE(t, h.get("/runs/run-1/events", nil))

	require.Len(t, messages, 4)
	require.Equal(t, "end", messages[3].event)
	var ev api.Event
	require.NoError(t, json.Unmarshal([]byte(messages[0].data), &ev))
	require.EqualValues(t, 1, ev.Sequence)
}

// The window is symmetric: a caller whose clock runs exactly five minutes
// ahead is inside it, as one exactly five minutes behind is.
func TestSignedDecisionFromAClockExactlyFiveMinutesAheadIsAccepted(t *testing.T) {
	h := waitingHarness(t, nil)

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow.Add(api.MaxSignatureSkew))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
}
