package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/approval/settings"

	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

const (
	e2eSecret        = "e2e-approval-secret-0123456789abcdef"
	e2eWebhookSecret = "e2e-webhook-secret-0123456789abcdefgh"
	e2eQueue         = "approval-e2e"
	identityHeader   = "X-Forwarded-User"
	// waitLong covers a run's model and tool steps on a busy 2-core machine.
	waitLong = 60 * time.Second
)

// stack is a real dev server, an in-process worker with the offline
// reviewer, the GitHub sandbox and the approval server wired as its main
// wires it.
type stack struct {
	t        *testing.T
	temporal client.Client
	sandbox  *ghsandbox.Server
	approval *httptest.Server
	cfg      settings.Program
}

func startStack(t *testing.T) *stack {
	t.Helper()
	return startStackWith(t, map[string]string{
		"APPROVAL_SECRET":          e2eSecret,
		"GITHUB_WEBHOOK_SECRET":    e2eWebhookSecret,
		"APPROVAL_IDENTITY_HEADER": identityHeader,
		// The test's clients, headless chromium included, stand for the login proxy.
		"APPROVAL_TRUSTED_PROXIES": "127.0.0.1/32,::1",
	})
}

// startStackWith starts the stack with the approval server's variables
// vars, pointed at the stack's Temporal and sandbox.
func startStackWith(t *testing.T, vars map[string]string) *stack {
	t.Helper()
	base := testkit.StartStack(t, testkit.StackOptions{TaskQueue: e2eQueue})
	vars["TEMPORAL_ADDRESS"] = base.TemporalAddress()
	vars["GITHUB_API_URL"] = base.GitHubURL
	vars["GITHUB_TOKEN"] = "sandbox-token"
	vars["AGENT_TASK_QUEUE"] = e2eQueue
	cfg, err := loadConfig(standalone.Getenv(vars))
	require.NoError(t, err)
	s := &stack{t: t, temporal: base.Client(), sandbox: base.Sandbox(), cfg: cfg}
	s.approval = s.startApproval()
	return s
}

// startApproval starts an approval server as the main wires it. A second
// one over the same Temporal stands for the first after a restart: it
// shares no memory with it.
func (s *stack) startApproval() *httptest.Server {
	s.t.Helper()
	srv, err := newServer(context.Background(), s.cfg, s.temporal, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(s.t, err)
	approval := httptest.NewServer(srv.Handler())
	s.t.Cleanup(approval.Close)
	return approval
}

// startReview starts a review of acme/widgets#1 and waits until it asks for
// approval, read through the approval server's own snapshot endpoint.
func (s *stack) startReview(runID string, approvers ...string) api.PendingAction {
	s.t.Helper()
	_, err := s.temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: runID, TaskQueue: e2eQueue},
		api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: approvers})
	require.NoError(s.t, err)
	return s.waitingAction(runID)
}

// waitingAction waits until the run asks for approval, read through the
// approval server's own snapshot endpoint, and returns what it waits on.
func (s *stack) waitingAction(runID string) api.PendingAction {
	s.t.Helper()
	var action api.PendingAction
	require.Eventually(s.t, func() bool {
		snap, ok := s.snapshot(runID)
		if ok && snap.PendingAction != nil && snap.PendingAction.State == api.ActionWaiting {
			action = *snap.PendingAction
			return true
		}
		return false
	}, waitLong, 50*time.Millisecond, "run %s never asked for approval", runID)
	return action
}

func (s *stack) snapshot(runID string) (api.RunSnapshot, bool) {
	return readSigned[api.RunSnapshot](s, "/v1/runs/"+runID)
}

// readableSnapshot is the run as the approval server reads it, asked again
// while a read fails: the read of a run that has just ended replays its
// history on the worker, and on 2 cores busy with the other packages' tests
// one such read can outlast the server's 10 s Temporal bound.
func (s *stack) readableSnapshot(runID string) api.RunSnapshot {
	s.t.Helper()
	var snap api.RunSnapshot
	require.Eventually(s.t, func() bool {
		var ok bool
		snap, ok = s.snapshot(runID)
		return ok
	}, waitLong, 100*time.Millisecond, "the approval server never read run %s", runID)
	return snap
}

// readSigned reads target of the /v1 API; false for any failure, so that a
// caller can poll it until the server has what it waits for.
func readSigned[T any](s *stack, target string) (T, bool) {
	var v T
	resp, err := http.DefaultClient.Do(s.signedGet(context.Background(), s.approval.URL+target))
	if err != nil {
		return v, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&v) != nil {
		var zero T
		return zero, false
	}
	return v, true
}

// postedReviews are the sandbox comments the agent created (they carry the
// operation marker).
func (s *stack) postedReviews() []ghsandbox.Comment {
	var posted []ghsandbox.Comment
	for _, c := range s.sandbox.Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, "<!-- agent-operation:") {
			posted = append(posted, c)
		}
	}
	return posted
}

func (s *stack) signedDecision(runID, actionID string, req approvalsrv.Decision) (int, map[string]string) {
	s.t.Helper()
	return s.signedJSON("/v1/runs/"+runID+"/actions/"+actionID+"/decision", req)
}

// signedJSON posts v as JSON to path of the /v1 API, signed.
func (s *stack) signedJSON(path string, v any) (int, map[string]string) {
	s.t.Helper()
	body, err := json.Marshal(v)
	require.NoError(s.t, err)
	return s.send(s.signedPost(path, body, ""))
}

// signedPost is a post of body to path of the /v1 API, signed as its
// callers sign it; key, when set, is its Idempotency-Key.
func (s *stack) signedPost(path string, body []byte, key string) *http.Request {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.approval.URL+path, bytes.NewReader(body))
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(api.HeaderIdempotencyKey, key)
	}
	api.SignRequest(req, []byte(e2eSecret), body, time.Now())
	return req
}

// signedGet is a read of the /v1 API, signed as its callers sign it.
func (s *stack) signedGet(ctx context.Context, url string) *http.Request {
	s.t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(s.t, err)
	api.SignRequest(req, []byte(e2eSecret), nil, time.Now())
	return req
}

func (s *stack) send(req *http.Request) (int, map[string]string) {
	s.t.Helper()
	resp, answer := s.do(req)
	return resp.StatusCode, answer
}

// do sends req and decodes its {status}, {error} or other flat answer; a
// 204 has none.
func (s *stack) do(req *http.Request) (*http.Response, map[string]string) {
	s.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	answer := map[string]string{}
	if resp.StatusCode != http.StatusNoContent {
		require.NoError(s.t, json.NewDecoder(resp.Body).Decode(&answer))
	}
	return resp, answer
}

// followEvents reads the run's event stream until its end event and returns
// the ids of the run events, in order.
func (s *stack) followEvents(runID string) []int64 {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLong)
	defer cancel()
	resp, err := http.DefaultClient.Do(s.signedGet(ctx, s.approval.URL+"/v1/runs/"+runID+"/events"))
	require.NoError(s.t, err)
	defer resp.Body.Close()
	require.Equal(s.t, http.StatusOK, resp.StatusCode)
	var ids []int64
	scanner := bufio.NewScanner(resp.Body)
	scanner.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			seq, err := strconv.ParseInt(id, 10, 64)
			require.NoError(s.t, err)
			ids = append(ids, seq)
		}
		if line == "event: end" {
			return ids
		}
	}
	s.t.Fatalf("event stream of %s stopped without an end event: %v", runID, scanner.Err())
	return nil
}
