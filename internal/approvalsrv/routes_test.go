package approvalsrv

import (
	"bytes"
	"encoding/base64"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/testkit"
)

const codecToken = "test-codec-token-0123456789abcdef"

// codecOrigin is the Web UI origin the route servers' codec endpoint allows.
const codecOrigin = "https://temporal-ui.example.com"

// routeServer is a server outside dev mode with every optional route on:
// the webhook on the main listener and the codec endpoint.
func routeServer(t *testing.T, runs *fakeRuns) *Server {
	t.Helper()
	return routeServerWith(t, testConfig(), runs)
}

// routeServerWith is routeServer on cfg (a webhook listener of its own).
func routeServerWith(t *testing.T, cfg Config, runs *fakeRuns) *Server {
	t.Helper()
	srv, err := New(cfg, testOptions(Options{Runs: runs, Codec: testCodecEndpoint(t)}))
	require.NoError(t, err)
	return srv
}

func testCodecEndpoint(t *testing.T) http.Handler {
	t.Helper()
	codec, err := payloadcodec.Parse("k1:" + base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{7}, payloadcodec.KeySize)))
	require.NoError(t, err)
	cfg := payloadcodec.ServerConfig{Token: codecToken, AllowedOrigins: []string{codecOrigin}}
	return payloadcodec.NewHandler(codec, cfg, "default", quietLogger())
}

// everyRoute is the table as the tests know it, with every optional route
// built: a route the table gains, loses or leaves unbuilt fails
// TestTheRouteTableIsEveryRouteTheTestsProbe until it is added here.
var everyRoute = map[string]credential{
	"POST /v1/runs/{runId}/actions/{actionId}/decision": credentialSigned,
	"POST /v1/runs/{runId}/decision":                    credentialSigned,
	"POST /v1/runs/{runId}/steps/{stepId}/resolve":      credentialSigned,
	"POST /v1/runs/{runId}/cancel":                      credentialSigned,
	"POST /v1/runs":                                     credentialSigned,
	"GET /v1/runs":                                      credentialSigned,
	"GET /v1/runs/{runId}":                              credentialSigned,
	"GET /v1/runs/{runId}/events":                       credentialSigned,
	"GET /v1/approvals":                                 credentialSigned,
	"POST /v1/holds":                                    credentialSigned,
	"POST /v1/holds/release":                            credentialSigned,
	"GET /v1/holds":                                     credentialSigned,
	"GET /{$}":                                          credentialPage,
	"GET /runs":                                         credentialPage,
	"GET /runs/{runId}":                                 credentialPage,
	"GET /runs/{runId}/panel":                           credentialPage,
	"GET /runs/{runId}/events":                          credentialPage,
	"POST /runs/{runId}/actions/{actionId}/decision":    credentialPage,
	"POST /runs/{runId}/decision":                       credentialPage,
	"POST /runs/{runId}/cancel":                         credentialPage,
	"POST /runs/{runId}/follow-up":                      credentialPage,
	"POST /github/webhook":                              credentialGitHub,
	"GET /healthz":                                      credentialOpen,
	"GET /static/":                                      credentialOpen,
	"/codec/":                                           credentialCodecToken,
}

// The probes below go through the table: this is what makes them cover
// every entry, optional ones included.
func TestTheRouteTableIsEveryRouteTheTestsProbe(t *testing.T) {
	srv := routeServerWith(t, separateWebhook(), newFakeRuns())
	table := map[string]credential{}
	for _, rt := range srv.routes() {
		table[rt.pattern] = rt.credential
	}
	require.Equal(t, everyRoute, table)
}

// separateWebhook is testConfig with the webhook on a listener of its own.
func separateWebhook() Config {
	cfg := testConfig()
	cfg.WebhookAddr = "127.0.0.1:0"
	return cfg
}

// listenerOf is the handler that serves rt: the main listener's, or the
// webhook listener's for a route only there.
func listenerOf(srv *Server, rt route) http.Handler {
	if rt.listeners&onMain != 0 {
		return srv.Handler()
	}
	return srv.WebhookHandler()
}

// probeTarget is a request line that reaches the route: its wildcards
// filled with IDs that pass their rules; a pattern without a method is
// probed with POST.
func probeTarget(pattern string) (method, path string) {
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		method, path = http.MethodPost, pattern
	}
	return method, strings.NewReplacer("{runId}", "run-1", "{actionId}", "act-1", "{stepId}", "step-3", "{$}", "").Replace(path)
}

// probeBody is what a probe sends: a read sends nothing (and signs an empty
// body), a write a small JSON object.
func probeBody(method string) []byte {
	if method == http.MethodGet {
		return nil
	}
	return []byte(`{"action":"created"}`)
}

// credentialFor sets on r a credential of class c, made with key (the
// server's own secret, or a forged one).
func credentialFor(r *http.Request, c credential, body []byte, forged bool) {
	secret, hubSecret, token, peer := testSecret, webhookSecret, codecToken, "127.0.0.1:4000"
	if forged {
		secret, hubSecret, token, peer = "forged-approval-secret-0123456789", "forged-webhook-secret-0123456789", "forged-codec-token-0123456789abcd", "192.0.2.9:4000"
	}
	switch c {
	case credentialSigned:
		api.SignRequest(r, []byte(secret), body, testNow)
	case credentialPage:
		// Forged: the header sent by a peer that is not the login proxy.
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-User", "alice")
	case credentialGitHub:
		r.Header.Set("X-GitHub-Event", "issue_comment")
		r.Header.Set("X-GitHub-Delivery", "d-probe")
		r.Header.Set("X-Hub-Signature-256", testkit.GitHubSignature(hubSecret, body))
	case credentialCodecToken:
		r.Header.Set("Authorization", "Bearer "+token)
	}
}

var credentialClasses = []credential{credentialSigned, credentialPage, credentialGitHub, credentialCodecToken}

// Every route of the table, probed outside dev mode: with no credentials,
// with a forged credential of its own class, and with a good credential of
// every other class. Each route that is not open answers 401 to all of them
// and nothing reaches the run; a route that declares no class fails here.
func TestEveryRouteRefusesCallersWithoutItsOwnCredential(t *testing.T) {
	runs := newFakeRuns()
	runs.put("run-1", waitingRun("alice"))
	srv := routeServerWith(t, separateWebhook(), runs)
	probed := map[string]credential{}
	var open []string

	for _, rt := range srv.routes() {
		handler := listenerOf(srv, rt)
		probed[rt.pattern] = rt.credential
		require.Contains(t, credentialNames, rt.credential, "route %q declares no credential", rt.pattern)
		method, path := probeTarget(rt.pattern)
		body := probeBody(method)
		probe := func(name string, set func(*http.Request)) *httptest.ResponseRecorder {
			r := httptest.NewRequest(method, path, bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			set(r)
			w := httptest.NewRecorder()
			handler.ServeHTTP(w, r)
			return w
		}
		if rt.credential == credentialOpen {
			open = append(open, rt.pattern)
			w := probe("none", func(*http.Request) {})
			require.Less(t, w.Code, 400, "open route %q answers without credentials", rt.pattern)
			continue
		}
		attempts := map[string]func(*http.Request){
			"no credentials":                   func(*http.Request) {},
			"forged " + rt.credential.String(): func(r *http.Request) { credentialFor(r, rt.credential, body, true) },
		}
		for _, other := range credentialClasses {
			if other != rt.credential {
				attempts["a good "+other.String()+" credential"] = func(r *http.Request) { credentialFor(r, other, body, false) }
			}
		}
		for name, set := range attempts {
			w := probe(name, set)
			require.Equal(t, http.StatusUnauthorized, w.Code, "%s with %s: %s", rt.pattern, name, w.Body.String())
			require.NotContains(t, w.Body.String(), "Looks good, but", "%s with %s", rt.pattern, name)
		}
	}
	require.Equal(t, everyRoute, probed, "every route of the table was probed, the optional ones too")
	require.ElementsMatch(t, []string{"GET /healthz", "GET /static/"}, open, "only what docs/security.md names as open is open")
	snapshots, events, lookups, listings := runs.counts()
	require.Zero(t, snapshots+events+lookups+listings, "no refused probe read a run")
	require.Empty(t, runs.startRequests(), "no refused probe started a run")
	require.Empty(t, runs.pageListings, "no refused probe listed runs")
	require.Empty(t, runs.approvalSignals())
	require.Empty(t, runs.resolveSignals())
	require.Empty(t, runs.refusalSignals())
}

// The probe above would not notice a route whose own credential fails too:
// each class's good credential opens its routes.
func TestEveryGuardedRouteTakesAGoodCredentialOfItsClass(t *testing.T) {
	runs := newFakeRuns()
	runs.put("run-1", waitingRun("alice"))
	runs.appendEvents("run-1", finished(1)) // the event streams end at once
	srv := routeServerWith(t, separateWebhook(), runs)
	probed := map[string]credential{}

	for _, rt := range srv.routes() {
		probed[rt.pattern] = rt.credential
		handler := listenerOf(srv, rt)
		if rt.credential == credentialOpen {
			continue
		}
		method, path := probeTarget(rt.pattern)
		body := probeBody(method)
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		credentialFor(r, rt.credential, body, false)
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		require.NotEqual(t, http.StatusUnauthorized, w.Code, "%s: %s", rt.pattern, w.Body.String())
	}
	require.Equal(t, everyRoute, probed, "every route of the table was probed")
}

func TestARouteWithoutACredentialDoesNotBuild(t *testing.T) {
	srv := routeServer(t, newFakeRuns())

	_, err := srv.guard(route{pattern: "GET /v1/new", handler: http.NotFoundHandler()})

	require.ErrorContains(t, err, `route "GET /v1/new" declares no credential`)
}

// Handler and WebhookHandler register the table's routes and nothing else:
// a route added anywhere but the table would skip its guard.
func TestRoutesAreRegisteredOnlyFromTheTable(t *testing.T) {
	var calls []string
	for _, dir := range []string{".", "../../approval"} {
		require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			require.NoError(t, err)
			for _, decl := range file.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok {
					continue
				}
				ast.Inspect(fn, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Handle" || sel.Sel.Name == "HandleFunc") {
						calls = append(calls, filepath.Base(path)+":"+fn.Name.Name)
					}
					return true
				})
			}
			return nil
		}))
	}
	require.Equal(t, []string{"routes.go:mux"}, calls)
}

func TestWebhookListenerServesOnlyTheWebhookAndHealth(t *testing.T) {
	srv := routeServer(t, newFakeRuns())
	var webhookRoutes []string
	for _, rt := range srv.routes() {
		if rt.listeners&onWebhook != 0 {
			webhookRoutes = append(webhookRoutes, rt.pattern)
		}
	}
	require.ElementsMatch(t, []string{"POST /github/webhook", "GET /healthz"}, webhookRoutes)
}

// A captured signed read replayed with its query changed reads nothing:
// the query is part of what is signed.
func TestSignedReadReplayedWithAnotherQueryAnswers401AndReadsNothing(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", api.Event{Sequence: 1, Type: api.EventStepStatus, Status: "running"}, finished(2))
	const events = "/v1/runs/run-1/events?lastEventId=1&x=1"
	capturedEvents := signedHeaders(http.MethodGet, events, nil, testNow)
	capturedSnapshot := signedHeaders(http.MethodGet, "/v1/runs/run-1", nil, testNow)

	for path, captured := range map[string]map[string]string{
		"/v1/runs/run-1/events?lastEventId=1&x=1&y=2": capturedEvents, // added
		"/v1/runs/run-1/events?lastEventId=1":         capturedEvents, // removed
		"/v1/runs/run-1/events":                       capturedEvents, // all removed
		"/v1/runs/run-1/events?lastEventId=0&x=1":     capturedEvents, // changed
		"/v1/runs/run-1/events?x=1&lastEventId=1":     capturedEvents, // reordered
		"/v1/runs/run-1?status=failed":                capturedSnapshot,
	} {
		resp := h.getAnonymous(path, captured)
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, path)
		require.Equal(t, "signature does not match", replyOf(t, resp)["error"], path)
	}
	snapshots, eventQueries, _, _ := h.runs.counts()
	require.Zero(t, snapshots+eventQueries, "a refused replay reads nothing")

	original := h.getAnonymous(events, capturedEvents)
	require.Equal(t, http.StatusOK, original.StatusCode)
	stream := readAll(t, original)
	require.Contains(t, stream, "id: 2\n")
	require.NotContains(t, stream, "id: 1\n", "the signed lastEventId is the one served")
	require.Equal(t, http.StatusOK, h.getAnonymous("/v1/runs/run-1", capturedSnapshot).StatusCode)
}

// reachedCodec is a codec endpoint that records whether a request reached
// it; its token rule is the real endpoint's.
type reachedCodec struct {
	codecEndpoint
	reached *bool
}

func (c reachedCodec) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	*c.reached = true
	c.codecEndpoint.ServeHTTP(w, r)
}

// Each class's guard applies its check itself: a handler that checks
// nothing is not reached without the class's credential.
func TestEveryGuardChecksItsCredentialBeforeItsHandler(t *testing.T) {
	srv := routeServer(t, newFakeRuns())
	reached := false
	unchecked := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached = true })
	codec := reachedCodec{codecEndpoint: testCodecEndpoint(t).(codecEndpoint), reached: &reached}

	for _, rt := range []route{
		{pattern: "POST /v1/x", credential: credentialSigned, handler: unchecked},
		{pattern: "GET /x", credential: credentialPage, handler: unchecked},
		{pattern: "POST /x", credential: credentialGitHub, handler: unchecked},
		{pattern: "/codec/", credential: credentialCodecToken, handler: codec},
	} {
		reached = false
		guarded, err := srv.guard(rt)
		require.NoError(t, err, rt.pattern)
		for name, set := range map[string]func(*http.Request){
			"no credentials": func(*http.Request) {},
			"a forged one":   func(r *http.Request) { credentialFor(r, rt.credential, nil, true) },
		} {
			method, _ := probeTarget(rt.pattern)
			r := httptest.NewRequest(method, "/codec/decode", strings.NewReader("{}"))
			r.Header.Set("Content-Type", "application/json")
			set(r)
			w := httptest.NewRecorder()
			guarded.ServeHTTP(w, r)
			require.Equal(t, http.StatusUnauthorized, w.Code, "%s (%s) with %s", rt.pattern, rt.credential, name)
		}
		require.False(t, reached, "%s: the handler was reached without the class's credential", rt.credential)
	}
}

// The codec endpoint's CORS preflight carries no token: it passes the
// guard and is answered from the allowed origins, never decoding anything.
func TestCodecPreflightNeedsNoTokenAndAnythingElseDoes(t *testing.T) {
	srv := routeServer(t, newFakeRuns())
	handler := srv.Handler()
	send := func(method, origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, "/codec/decode", strings.NewReader(`{"payloads":[]}`))
		if origin != "" {
			r.Header.Set("Origin", origin)
		}
		w := httptest.NewRecorder()
		handler.ServeHTTP(w, r)
		return w
	}

	preflight := send(http.MethodOptions, codecOrigin)
	require.Equal(t, http.StatusNoContent, preflight.Code)
	require.Equal(t, codecOrigin, preflight.Header().Get("Access-Control-Allow-Origin"))
	require.Equal(t, http.StatusForbidden, send(http.MethodOptions, "https://evil.example").Code)
	require.Equal(t, http.StatusUnauthorized, send(http.MethodOptions, "").Code, "OPTIONS without Origin is no preflight")
	require.Equal(t, http.StatusUnauthorized, send(http.MethodPost, codecOrigin).Code)
}

// An open route is checked when the table is built: one that could read a
// run ({runId}) or change anything (not a GET) does not build.
func TestAnOpenRouteThatIsNotAFixedGetDoesNotBuild(t *testing.T) {
	srv := routeServer(t, newFakeRuns())
	for _, pattern := range []string{"POST /healthz", "GET /runs/{runId}/badge", "/anything"} {
		_, err := srv.guard(route{pattern: pattern, credential: credentialOpen, handler: http.NotFoundHandler()})
		require.ErrorContains(t, err, "must be a GET of a path without wildcards", pattern)
	}
	_, err := srv.guard(route{pattern: "/codec/", credential: credentialCodecToken, handler: http.NotFoundHandler()})
	require.ErrorContains(t, err, "cannot check a token")
}
