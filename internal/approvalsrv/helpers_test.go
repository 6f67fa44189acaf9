package approvalsrv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const testSecret = "test-approval-secret-0123456789abcdef"

// viewerLogin is who the login proxy says is at the page when a test does
// not care who.
const viewerLogin = "viewer"

// testNow is the server's clock in handler tests.
var testNow = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

// testConfig trusts the identity header from loopback, where httptest's
// clients connect from: they stand for the login proxy.
func testConfig() Config {
	return Config{
		Addr: defaultAddr, Secret: testSecret, WebhookSecret: webhookSecret,
		IdentityHeader: "X-Forwarded-User", TrustedProxies: loopbackProxies(),
	}
}

func loopbackProxies() []netip.Prefix {
	return []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
}

type harness struct {
	t      *testing.T
	runs   *fakeRuns
	server *Server
	http   *httptest.Server
}

func newHarness(t *testing.T, cfg Config, perms PermissionChecker) *harness {
	t.Helper()
	return newHarnessOn(t, cfg, perms, newFakeRuns())
}

// newHarnessOn starts a server over existing runs, as a restarted approval
// server finds them.
func newHarnessOn(t *testing.T, cfg Config, perms PermissionChecker, runs *fakeRuns) *harness {
	t.Helper()
	if perms == nil {
		perms = everyoneReads{}
	}
	h := serve(t, cfg, Options{Runs: runs, Permissions: perms, EventPollInterval: 10 * time.Millisecond})
	h.runs = runs
	return h
}

// serve starts a server on opts over httptest; its runs may be real, so
// h.runs is left to the caller.
func serve(t *testing.T, cfg Config, opts Options) *harness {
	t.Helper()
	srv, err := New(cfg, testOptions(opts))
	require.NoError(t, err)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return &harness{t: t, server: srv, http: ts}
}

// testOptions are opts with what handler tests want unless they say
// otherwise: no log output, and testNow as the clock.
func testOptions(opts Options) Options {
	if opts.Logger == nil {
		opts.Logger = quietLogger()
	}
	if opts.Now == nil {
		opts.Now = func() time.Time { return testNow }
	}
	return opts
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// waitingHarness is a harness on testConfig whose run-1 is
// waitingRun(approvers...): what most handler tests start from.
func waitingHarness(t *testing.T, perms PermissionChecker, approvers ...string) *harness {
	t.Helper()
	h := newHarness(t, testConfig(), perms)
	h.runs.put("run-1", waitingRun(approvers...))
	return h
}

// act1Hash is waitingRun's act-1 input: the hash of its comment.
var act1Hash = commentHash("Looks good, but `fmt.Println` is left in cache.go.")

// commentHash is the argsHash of a comment with body on acme/widgets#1, as
// the run binds it.
func commentHash(body string) string {
	args, err := json.Marshal(map[string]string{"body": body})
	if err != nil {
		panic(err)
	}
	return api.ToolArgsHash(api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}, api.ToolCreateIssueComment, args)
}

// waitingRun is a run waiting on action act-1, created 1 h before testNow
// and expiring 23 h after it.
func waitingRun(approvers ...string) api.RunSnapshot {
	action := api.PendingAction{
		ID: "act-1", StepID: "step-3", ToolName: "create_issue_comment",
		Preview: "Looks good, but `fmt.Println` is left in cache.go.", Target: "acme/widgets#1",
		ArgsHash: act1Hash, State: api.ActionWaiting, RequestedBy: "agent", Approvers: approvers,
		CreatedAt: testNow.Add(-time.Hour), ExpiresAt: testNow.Add(23 * time.Hour),
	}
	actions := []api.PendingAction{action}
	return api.RunSnapshot{
		Run: api.Run{
			Repo: "acme/widgets", PullNumber: 1, Approvers: approvers, Status: api.RunWaitingForUser,
		},
		Steps: []api.AgentStep{
			{ID: "step-1", Sequence: 1, Type: api.StepModelCall, Status: api.StepSucceeded, Attempt: 1, DurationMs: 12},
			{ID: "step-2", Sequence: 2, Type: api.StepToolCall, ToolName: "get_pull_request", Status: api.StepSucceeded, Attempt: 2, DurationMs: 2300, Error: "attempt 1: connection reset"},
			{ID: "step-3", Sequence: 3, Type: api.StepHumanApproval, Status: api.StepWaitingForApproval, Attempt: 1},
		},
		// PendingAction is the newest of Actions, as in a real snapshot: a
		// test that changes it changes the run's list too.
		PendingAction: &actions[0],
		Actions:       actions,
		Label:         "Waiting for approval to comment on acme/widgets#1",
	}
}

// signedPost sends body to the signed API with a valid signature made at ts.
func (h *harness) signedPost(path string, body []byte, ts time.Time) *http.Response {
	h.t.Helper()
	return h.signedPostAs(path, "application/json", body, ts)
}

// signedPostAs signs body correctly but sends it with contentType.
func (h *harness) signedPostAs(path, contentType string, body []byte, ts time.Time) *http.Response {
	h.t.Helper()
	headers := signedHeaders(http.MethodPost, path, body, ts)
	headers["Content-Type"] = contentType
	return h.post(path, body, headers)
}

// signedHeaders are the signature headers of a request to target (its
// path, escaped as it goes on the wire, and its query) made at ts.
func signedHeaders(method, target string, body []byte, ts time.Time) map[string]string {
	return signedHeadersKeyed(method, target, body, ts, "")
}

// signedHeadersKeyed are signedHeaders with the Idempotency-Key key, which
// the signature covers; "" sends none.
func signedHeadersKeyed(method, target string, body []byte, ts time.Time, key string) map[string]string {
	req := httptest.NewRequest(method, target, nil)
	headers := map[string]string{}
	if key != "" {
		req.Header.Set(api.HeaderIdempotencyKey, key)
		headers[api.HeaderIdempotencyKey] = key
	}
	api.SignRequest(req, []byte(testSecret), body, ts)
	headers[api.HeaderTimestamp] = req.Header.Get(api.HeaderTimestamp)
	headers[api.HeaderSignature] = req.Header.Get(api.HeaderSignature)
	return headers
}

func (h *harness) post(path string, body []byte, headers map[string]string) *http.Response {
	h.t.Helper()
	return h.do(http.MethodPost, path, bytes.NewReader(body), headers)
}

// get sends the credentials path's route class needs, so that tests of what
// a route shows need not repeat them: a signature for /v1, the login proxy's
// viewerLogin for a page, unless headers bring their own. getAnonymous sends
// none.
func (h *harness) get(path string, headers map[string]string) *http.Response {
	h.t.Helper()
	all := map[string]string{}
	if strings.HasPrefix(path, "/v1/") {
		maps.Copy(all, signedHeaders(http.MethodGet, path, nil, testNow))
	} else if name := h.server.cfg.IdentityHeader; name != "" {
		all[name] = viewerLogin
	}
	maps.Copy(all, headers)
	return h.do(http.MethodGet, path, nil, all)
}

func (h *harness) getAnonymous(path string, headers map[string]string) *http.Response {
	h.t.Helper()
	return h.do(http.MethodGet, path, nil, headers)
}

func (h *harness) do(method, path string, body io.Reader, headers map[string]string) *http.Response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.http.URL+path, body)
	require.NoError(h.t, err)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := h.http.Client().Do(req)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func decisionBody(t *testing.T, decision, approver, reason, requestID string) []byte {
	t.Helper()
	body, err := json.Marshal(Decision{Decision: decision, Approver: approver, Reason: reason, RequestID: requestID})
	require.NoError(t, err)
	return body
}

// replyOf decodes a {status} or {error} body.
func replyOf(t *testing.T, resp *http.Response) map[string]string {
	t.Helper()
	var body map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return body
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

const decisionPath = "/v1/runs/run-1/actions/act-1/decision"

// everyoneReads is the GitHub the handler tests see unless they bring their
// own: everyone may read every repository, nobody may write. The tests of
// who may read a run (readscope_test.go) bring the sandbox's.
type everyoneReads struct{}

func (everyoneReads) Permission(context.Context, string, string, string) (string, error) {
	return "read", nil
}
