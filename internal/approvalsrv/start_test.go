package approvalsrv

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

const startBody = `{"repo":"acme/widgets","pullNumber":7,"goal":"focus on errors","agent":"pr-review","approvers":["alice"],"userId":"carol"}`

// startHeaders are the headers of a start signed at ts under key ("" sends
// none); the key is signed with the rest.
func startHeaders(key string, body []byte, ts time.Time) map[string]string {
	headers := signedHeadersKeyed(http.MethodPost, "/v1/runs", body, ts, key)
	headers["Content-Type"] = "application/json"
	return headers
}

func (h *harness) start(key string, body []byte) *http.Response {
	h.t.Helper()
	return h.post("/v1/runs", body, startHeaders(key, body, testNow))
}

func TestStartAnswers202WithTheRunAndItsSnapshotURLAndStartsWhatTheBodyAsks(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.server.cfg.TaskQueue = "reviews"

	resp := h.start("ticket-42", []byte(startBody))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	runID := replyOf(t, resp)["runId"]
	require.Equal(t, runclient.KeyedRunID("carol", "ticket-42"), runID, "the run is the user's key's")
	require.Equal(t, "/v1/runs/"+runID, resp.Header.Get("Location"))
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	want := api.RunInput{
		Repo: "acme/widgets", PullNumber: 7, Goal: "focus on errors", Agent: "pr-review",
		Approvers: []string{"alice"}, UserID: "carol", ConversationID: runID,
	}
	require.Equal(t, runclient.StartRequest{RunID: runID, TaskQueue: "reviews", Input: want, RequestHash: runclient.RequestHash(want)}, starts[0])

	snapshot := h.get(resp.Header.Get("Location"), nil)
	require.Equal(t, http.StatusNotFound, snapshot.StatusCode, "the Location is the signed snapshot route (the fake starts nothing)")
}

func TestStartWithoutAUsableIdempotencyKeyIs400AndStartsNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	body := []byte(startBody)
	for name, key := range map[string]string{
		"missing":   "",
		"too long":  strings.Repeat("k", 256),
		"not ASCII": "clé",
		"a tab":     "a\tb",
	} {
		t.Run(name, func(t *testing.T) {
			resp := h.start(key, body)
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], "Idempotency-Key")
		})
	}
	require.Empty(t, h.runs.startRequests())
	require.Equal(t, http.StatusAccepted, h.start(strings.Repeat("k", 255), body).StatusCode, "255 characters is the longest key")
	require.Equal(t, http.StatusAccepted, h.start(`a key/with: "odd" ~chars`, body).StatusCode, "any printable ASCII")

	// Two keys: the signature covers both, the handler takes neither.
	req, err := http.NewRequest(http.MethodPost, h.http.URL+"/v1/runs", bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Add(api.HeaderIdempotencyKey, "k-1")
	req.Header.Add(api.HeaderIdempotencyKey, "k-2")
	api.SignRequest(req, []byte(testSecret), body, testNow)
	resp, err := h.http.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Len(t, h.runs.startRequests(), 2, "the two good keys")
}

func TestHostileStartBodiesAre400AndStartNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	cases := map[string]string{
		"unknown field":             `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","taskQueue":"evil"}`,
		"lifting the gate":          `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","postsWithoutAsking":"AGENTRUN_AUTO_REVIEW *:post"}`,
		"naming a comment to edit":  `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","supersedes":{"runId":"x","commentId":42}}`,
		"naming a superseded draft": `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","reviewedHead":"` + strings.Repeat("a", 40) + `","reviewedDraft":"run-x"}`,
		"choosing an installation":  `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","installationId":99}`,
		"a check on no commit":      `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","checkRun":{"headSha":"main"}}`,
		"trailing data":             `{"repo":"acme/widgets","pullNumber":7,"userId":"carol"}{}`,
		"not an object":             `["acme/widgets"]`,
		"no repo":                   `{"pullNumber":7,"userId":"carol"}`,
		"repo without owner":        `{"repo":"widgets","pullNumber":7,"userId":"carol"}`,
		"repo with a quote":         `{"repo":"acme/w'x","pullNumber":7,"userId":"carol"}`,
		"repo dot-dot":              `{"repo":"acme/..","pullNumber":7,"userId":"carol"}`,
		"repo path":                 `{"repo":"acme/widgets/../x","pullNumber":7,"userId":"carol"}`,
		"pull number zero":          `{"repo":"acme/widgets","pullNumber":0,"userId":"carol"}`,
		"pull number negative":      `{"repo":"acme/widgets","pullNumber":-1,"userId":"carol"}`,
		"pull number as text":       `{"repo":"acme/widgets","pullNumber":"7","userId":"carol"}`,
		"pull number huge":          `{"repo":"acme/widgets","pullNumber":1e30,"userId":"carol"}`,
		"agent upper case":          `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","agent":"PR-Review"}`,
		"agent with a space":        `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","agent":"pr review"}`,
		"agent with quotes":         `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","agent":"x' OR 1=1"}`,
		"agent too long":            `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","agent":"a` + strings.Repeat("b", 63) + `"}`,
		"approver not a login":      `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","approvers":["alice smith"]}`,
		"approver empty":            `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","approvers":[""]}`,
		"too many approvers":        `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","approvers":[` + strings.Repeat(`"a",`, 20) + `"a"]}`,
		"goal too long":             `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","goal":"` + strings.Repeat("g", 2001) + `"}`,
		"goal with a control":       `{"repo":"acme/widgets","pullNumber":7,"userId":"carol","goal":"a\u0000b"}`,
		"no user":                   `{"repo":"acme/widgets","pullNumber":7}`,
		"user with a newline":       `{"repo":"acme/widgets","pullNumber":7,"userId":"carol\nadmin"}`,
		"user surrounded by sp":     `{"repo":"acme/widgets","pullNumber":7,"userId":" carol"}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			resp := h.start("k-"+name, []byte(body))
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			msg := replyOf(t, resp)["error"]
			require.NotEmpty(t, msg)
			require.NotContains(t, msg, "json:", "no decoder internals reach the caller")
			require.LessOrEqual(t, len(msg), 200)
		})
	}
	huge := []byte(`{"repo":"acme/widgets","pullNumber":7,"userId":"carol","goal":"` + strings.Repeat("g", maxAPIBodyBytes) + `"}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, h.start("k-huge", huge).StatusCode)
	text := h.post("/v1/runs", []byte(startBody), map[string]string{"Content-Type": "text/plain"})
	require.Equal(t, http.StatusUnauthorized, text.StatusCode, "unsigned")
	require.Empty(t, h.runs.startRequests())
}

// A start is refused like a decision when its signature does not hold: the
// signature covers the key, so a captured start replayed under a fresh key
// starts nothing; a replay past five minutes neither.
func TestStartWithABadSignatureAStaleTimestampOrAReplayedKeyIs401(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	body := []byte(startBody)
	captured := startHeaders("k-1", body, testNow)

	forgedKey := startHeaders("k-1", body, testNow)
	forgedKey[api.HeaderIdempotencyKey] = "k-2"
	otherBody := []byte(strings.Replace(startBody, `"pullNumber":7`, `"pullNumber":8`, 1))
	forged := startHeaders("k-1", body, testNow)
	forged[api.HeaderSignature] = "sha256=" + strings.Repeat("0", 64)
	cases := map[string]struct {
		body    []byte
		headers map[string]string
	}{
		"replayed under a fresh key":   {body, forgedKey},
		"replayed with another body":   {otherBody, captured},
		"forged signature":             {body, forged},
		"timestamp six minutes old":    {body, startHeaders("k-1", body, testNow.Add(-6*time.Minute))},
		"timestamp six minutes ahead":  {body, startHeaders("k-1", body, testNow.Add(6*time.Minute))},
		"signed without the key":       {body, withKey(startHeaders("", body, testNow), "k-1")},
		"unsigned":                     {body, map[string]string{"Content-Type": "application/json", api.HeaderIdempotencyKey: "k-1"}},
		"signed for the decision path": {body, withKey(signedHeaders(http.MethodPost, decisionPath, body, testNow), "k-1")},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, http.StatusUnauthorized, h.post("/v1/runs", c.body, c.headers).StatusCode)
		})
	}
	require.Empty(t, h.runs.startRequests())

	for range 2 {
		require.Equal(t, http.StatusAccepted, h.post("/v1/runs", body, captured).StatusCode)
	}
	starts := h.runs.startRequests()
	require.Len(t, starts, 2)
	require.Equal(t, starts[0], starts[1], "a replay within the window is a repeat: it names the same run, which Start finds")
}

func withKey(headers map[string]string, key string) map[string]string {
	headers[api.HeaderIdempotencyKey] = key
	headers["Content-Type"] = "application/json"
	return headers
}

func TestStartWhileTemporalIsDownIs503WithoutInternalText(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.setUnavailable(true)

	resp := h.start("k-1", []byte(startBody))

	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "temporal is unreachable; try again later", replyOf(t, resp)["error"])
}

func TestListRunsRefusesFiltersOutsideTheirRulesBeforeAnyQuery(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for _, query := range []string{
		"agent=" + url.QueryEscape("x' OR 1=1"),
		"agent=" + url.QueryEscape(`x" OR "1"="1`),
		"agent=Triage",
		"agent=" + url.QueryEscape("pr review"),
		"status=" + url.QueryEscape("running' OR '1'='1"),
		"status=terminated",
		"status=running&status=failed",
		"pageSize=0", "pageSize=201", "pageSize=ten",
		"sort=StartTime",
	} {
		resp := h.get("/v1/runs?"+query, nil)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, query)
		require.NotEmpty(t, replyOf(t, resp)["error"], query)
	}
	require.Empty(t, h.runs.pageListings, "nothing reached the visibility query")

	for query, want := range map[string]runclient.ListFilter{
		"":                                   {},
		"status=waiting_for_user":            {Status: api.RunWaitingForUser},
		"agent=triage&status=completed":      {Agent: "triage", Status: api.RunCompleted},
		"agent=pr-review&pageSize=200":       {Agent: "pr-review"},
		fmt.Sprintf("pageToken=%s", "abc_-"): {},
	} {
		path := "/v1/runs"
		if query != "" {
			path += "?" + query
		}
		require.Equal(t, http.StatusOK, h.get(path, nil).StatusCode, query)
		require.Equal(t, want, h.runs.pageListings[len(h.runs.pageListings)-1], query)
	}
	require.Equal(t, http.StatusUnauthorized, h.getAnonymous("/v1/runs", nil).StatusCode, "the listing is signed")
}

// A start of any agent's target goes through the real handler: a kind with
// no source of approvers needs named ones, and a built-in agent's kind is
// the only one it takes.
func TestStartOfATicketTargetWithoutApproversIs400SayingItNeedsThem(t *testing.T) {
	h := newHarness(t, testConfig(), nil)

	resp := h.start("k-1", []byte(`{"agent":"tickets","target":{"kind":"support_queue","fields":{"queue":"support"}},"userId":"carol"}`))

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	msg := replyOf(t, resp)["error"]
	require.Contains(t, msg, "the run needs named approvers")
	require.Contains(t, msg, "a support_queue target has no source of who may approve")
	require.Empty(t, h.runs.startRequests())
}

func TestStartOfATargetOfAnotherKindThanItsAgentTakesIs400(t *testing.T) {
	h := newHarness(t, testConfig(), nil)

	resp := h.start("k-1", []byte(`{"agent":"triage","target":{"kind":"support_queue","fields":{"queue":"support"}},"approvers":["alice"],"userId":"carol"}`))

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Equal(t, "agent triage takes a github_pull_request target, not a support_queue one", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.startRequests())
}

func TestStartOfATicketTargetWithAnApproverStartsItsRun(t *testing.T) {
	h := newHarness(t, testConfig(), nil)

	resp := h.start("k-1", []byte(`{"agent":"tickets","target":{"kind":"support_queue","fields":{"queue":"support"}},"approvers":["alice"],"userId":"carol"}`))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	starts := h.runs.startRequests()
	require.Len(t, starts, 1)
	require.Equal(t, &api.Target{Kind: "support_queue", Fields: map[string]string{"queue": "support"}}, starts[0].Input.Target)
	require.Empty(t, starts[0].Input.Repo)
	require.Equal(t, runclient.RequestHash(starts[0].Input), starts[0].RequestHash)
}

func TestHostileStartTargetsAre400AndStartNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for name, body := range map[string]string{
		"target and repo":      `{"repo":"acme/widgets","pullNumber":7,"target":{"kind":"q","fields":{"a":"b"}},"approvers":["alice"],"userId":"carol"}`,
		"kind with a quote":    `{"agent":"tickets","target":{"kind":"q'x","fields":{"a":"b"}},"approvers":["alice"],"userId":"carol"}`,
		"field with a newline": `{"agent":"tickets","target":{"kind":"q","fields":{"a":"b\nc"}},"approvers":["alice"],"userId":"carol"}`,
		"no fields":            `{"agent":"tickets","target":{"kind":"q","fields":{}},"approvers":["alice"],"userId":"carol"}`,
		"pull request path":    `{"target":{"fields":{"repo":"acme/..","pull":"1"}},"userId":"carol"}`,
		"unknown target key":   `{"agent":"tickets","target":{"kind":"q","fields":{"a":"b"},"owner":"x"},"approvers":["alice"],"userId":"carol"}`,
	} {
		t.Run(name, func(t *testing.T) {
			resp := h.start("k-"+name, []byte(body))
			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.NotContains(t, replyOf(t, resp)["error"], "json:")
		})
	}
	require.Empty(t, h.runs.startRequests())
}
