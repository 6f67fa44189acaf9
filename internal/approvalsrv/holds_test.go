package approvalsrv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func holdBody(t *testing.T, req holdRequest) []byte {
	t.Helper()
	body, err := json.Marshal(req)
	require.NoError(t, err)
	return body
}

func TestSignedHoldAndReleaseReachTheHoldsOfTheWorkersQueueAndListWithWhoAndWhy(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	sel := api.HoldSelector{Agent: api.DefaultAgent}

	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops-oncall", Reason: "bad deploy", RequestID: "h1"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, map[string]string{"status": "held agent pr-review", "state": api.HoldOutcomePlaced}, replyOf(t, resp))
	list := h.get("/v1/holds", nil)
	require.Equal(t, http.StatusOK, list.StatusCode)
	var view api.HoldsView
	require.NoError(t, json.NewDecoder(list.Body).Decode(&view))
	require.Len(t, view.Active, 1)
	require.Equal(t, "ops-oncall", view.Active[0].By)
	require.Equal(t, "bad deploy", view.Active[0].Reason)

	// The lead placed no hold: nothing of theirs to release, and the
	// on-call's hold stands.
	resp = h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: sel, By: "ops-lead", Reason: "fixed", RequestID: "r1"}), testNow)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, map[string]string{"error": "nothing to release: no hold on agent pr-review", "state": api.HoldOutcomeNothingToRelease}, replyOf(t, resp))
	require.Len(t, h.server.activeHolds(t.Context()), 1)
	resp = h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: sel, By: "ops-lead", Reason: "fixed", All: true, RequestID: "r2"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, map[string]string{"status": "released agent pr-review", "state": api.HoldOutcomeReleased}, replyOf(t, resp))
	require.Empty(t, h.server.activeHolds(t.Context()))
	sent := h.runs.holdChangesSent()
	require.Len(t, sent, 3)
	require.Equal(t, api.UpdateHold, sent[0].Update)
	require.Equal(t, api.UpdateRelease, sent[1].Update)
	require.Equal(t, h.server.cfg.TaskQueue, sent[0].Queue)
	require.Equal(t, channelAPI, sent[1].Sig.Channel)
	require.Equal(t, "r2", sent[2].Sig.RequestID)
	require.True(t, sent[2].Sig.All)
}

func TestHostileHoldsAreRefusedAndSendNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	cases := map[string]struct {
		body    []byte
		headers map[string]string
		want    int
	}{
		"unsigned":  {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "x", RequestID: "q"}), headers: map[string]string{"Content-Type": "application/json"}, want: http.StatusUnauthorized},
		"no reason": {body: holdBody(t, holdRequest{Selector: agent, By: "ops", RequestID: "q"}), want: http.StatusBadRequest},
		"no one":    {body: holdBody(t, holdRequest{Selector: agent, Reason: "x", RequestID: "q"}), want: http.StatusBadRequest},
		"two things": {
			body: holdBody(t, holdRequest{Selector: api.HoldSelector{Agent: "a", Tool: "b"}, By: "ops", Reason: "x", RequestID: "q"}), want: http.StatusBadRequest,
		},
		"nothing named":       {body: holdBody(t, holdRequest{By: "ops", Reason: "x", RequestID: "q"}), want: http.StatusBadRequest},
		"control in reason":   {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "a\x1b[2Jb", RequestID: "q"}), want: http.StatusBadRequest},
		"control in selector": {body: holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/w\x1b"}, By: "ops", Reason: "x", RequestID: "q"}), want: http.StatusBadRequest},
		"unknown field":       {body: []byte(`{"selector":{"agent":"pr-review"},"by":"ops","reason":"x","requestId":"q","force":true}`), want: http.StatusBadRequest},
		"no request ID":       {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "x"}), want: http.StatusBadRequest},
		"all on a hold":       {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "x", All: true, RequestID: "q"}), want: http.StatusBadRequest},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			headers := tc.headers
			if headers == nil {
				headers = signedHeaders(http.MethodPost, "/v1/holds", tc.body, testNow)
				headers["Content-Type"] = "application/json"
			}
			resp := h.post("/v1/holds", tc.body, headers)
			require.Equal(t, tc.want, resp.StatusCode)
		})
	}
	require.Empty(t, h.runs.holdChangesSent())
}

func TestTheInboxAndAHeldRunsPageShowTheHoldWithWhoAndWhyEscaped(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	snap := waitingRun("alice")
	snap.Run.Agent = api.DefaultAgent
	h.runs.put("run-1", snap)
	reason := `bad deploy <script>alert(1)</script>`
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops-oncall", Reason: reason, RequestID: "h1"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	inbox := readAll(t, h.get("/", nil))
	require.Contains(t, inbox, "Held by ops: target acme/widgets by ops-oncall")
	require.Contains(t, inbox, "bad deploy &lt;script&gt;")
	require.NotContains(t, inbox, "<script>alert(1)")
	page := readAll(t, h.get("/runs/run-1", nil))
	require.Contains(t, page, "Held by ops (target acme/widgets, by ops-oncall): bad deploy &lt;script&gt;")

	resp = h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops-oncall", Reason: "fixed", RequestID: "r1"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.NotContains(t, readAll(t, h.get("/", nil)), "Held by ops")
	require.NotContains(t, readAll(t, h.get("/runs/run-1", nil)), "Held by ops")
}

// With Temporal unreachable a hold or release is not taken, and says so:
// an operator must not believe the stop switch is on when it is not.
func TestAHoldOrReleaseThatCannotReachTemporalSaysSoAndIsNotTaken(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.setUnavailable(true)
	sel := api.HoldSelector{Agent: api.DefaultAgent}
	for _, path := range []string{"/v1/holds", "/v1/holds/release"} {
		resp := h.signedPost(path, holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "bad deploy", RequestID: "q1"}), testNow)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
		require.Equal(t, "temporal is unreachable; try again later", replyOf(t, resp)["error"], path)
	}
	require.Empty(t, h.runs.holdChangesSent())
	list := h.get("/v1/holds", nil)
	require.Equal(t, http.StatusServiceUnavailable, list.StatusCode)
	require.Empty(t, h.server.activeHolds(t.Context()), "a page shows no holds rather than fail")

	h.runs.setUnavailable(false)
	// The same request again: a 503 is not remembered, so it is tried.
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "bad deploy", RequestID: "q1"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "held agent pr-review", replyOf(t, resp)["status"])
	require.Len(t, h.server.activeHolds(t.Context()), 1)
	require.Equal(t, "Held by ops (agent pr-review, by ops): bad deploy. This run sends nothing until the hold is released.",
		h.server.holdNotice(t.Context(), api.Run{ID: "run-1", Agent: api.DefaultAgent, Repo: "acme/widgets", PullNumber: 1}))
	require.Empty(t, h.server.holdNotice(t.Context(), api.Run{ID: "run-2", Agent: "triage", Repo: "acme/widgets", PullNumber: 1}))
}

func TestAHoldWhoseReasonIsExactlyTheBoundIsTaken(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	sel := api.HoldSelector{Tool: api.ToolCreateIssueComment}
	reason := strings.Repeat("r", api.MaxHoldReasonBytes)
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: reason, RequestID: "h1"}), testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	resp = h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: reason + "r", RequestID: "h2"}), testNow)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Len(t, h.runs.holdChangesSent(), 1)
}

// A hold that could never match a run is refused 400 with what to write
// instead, rather than answered as placed while every run goes on.
func TestAHoldThatCouldNeverMatchIsRefused400(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for selector, want := range map[string]string{
		`{"target":"https://github.com/acme/widgets/pull/12"}`: "not by URL",
		`{"target":"acme/widgets#"}`:                           "after '#' comes a pull request's number",
		`{"agent":"PR Review"}`:                                "an agent's name is lower case letters, digits and '-'",
		`{"tool":"Create Issue"}`:                              "a tool's name is lower case letters, digits and '_'",
	} {
		body := []byte(`{"selector":` + selector + `,"by":"ops","reason":"incident","requestId":"h1"}`)
		resp := h.signedPost("/v1/holds", body, testNow)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, selector)
		require.Contains(t, replyOf(t, resp)["error"], want, selector)
	}
	require.Empty(t, h.runs.holdChangesSent())
}

// A captured release replayed within the signature's window, after the
// hold was placed again, is answered as the first was and releases
// nothing: the hold stands.
func TestAReplayedReleaseIsAnsweredFromTheMemoAndLeavesTheHoldPlacedSince(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	sel := api.HoldSelector{Agent: api.DefaultAgent}
	hold := func(id string) {
		resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "bad deploy", RequestID: id}), testNow)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	release := holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "fixed", RequestID: "r1"})
	hold("h1")
	resp := h.signedPost("/v1/holds/release", release, testNow)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	hold("h2") // the deploy was bad after all
	replayed := h.signedPost("/v1/holds/release", release, testNow.Add(time.Minute))
	require.Equal(t, http.StatusOK, replayed.StatusCode)
	require.Equal(t, "released agent pr-review", replyOf(t, replayed)["status"], "answered as the first was")
	require.Len(t, h.server.activeHolds(t.Context()), 1, "the hold placed since stands")
	require.Len(t, h.runs.holdChangesSent(), 3, "the replay sent nothing")
	// The same request ID asking for something else is refused.
	other := h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "other", RequestID: "r1"}), testNow)
	require.Equal(t, http.StatusConflict, other.StatusCode)
	require.Len(t, h.server.activeHolds(t.Context()), 1)
}

// A hold the holds workflow did not answer in time is not reported as
// placed: 503, saying it is not confirmed.
func TestAHoldTheHoldsWorkflowDidNotAnswerIsNotReportedPlaced(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.mu.Lock()
	h.runs.holdAnswerErr = fmt.Errorf("place-hold agent pr-review: %w", runclient.ErrHoldUnconfirmed)
	h.runs.mu.Unlock()
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: api.HoldSelector{Agent: api.DefaultAgent}, By: "ops", Reason: "x", RequestID: "h1"}), testNow)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "not confirmed")
}
