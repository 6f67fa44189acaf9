package approvalsrv

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
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

	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops-oncall", Reason: "bad deploy"}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	list := h.get("/v1/holds", nil)
	require.Equal(t, http.StatusOK, list.StatusCode)
	var view api.HoldsView
	require.NoError(t, json.NewDecoder(list.Body).Decode(&view))
	require.Len(t, view.Active, 1)
	require.Equal(t, "ops-oncall", view.Active[0].By)
	require.Equal(t, "bad deploy", view.Active[0].Reason)

	resp = h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: sel, By: "ops-lead", Reason: "fixed"}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	sent := h.runs.holdChangesSent()
	require.Len(t, sent, 2)
	require.Equal(t, api.SignalHold, sent[0].Signal)
	require.Equal(t, api.SignalRelease, sent[1].Signal)
	require.Equal(t, h.server.cfg.TaskQueue, sent[0].Queue)
	require.Equal(t, channelAPI, sent[1].Sig.Channel)
}

func TestHostileHoldsAreRefusedAndSendNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	cases := map[string]struct {
		body    []byte
		headers map[string]string
		want    int
	}{
		"unsigned":  {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "x"}), headers: map[string]string{"Content-Type": "application/json"}, want: http.StatusUnauthorized},
		"no reason": {body: holdBody(t, holdRequest{Selector: agent, By: "ops"}), want: http.StatusBadRequest},
		"no one":    {body: holdBody(t, holdRequest{Selector: agent, Reason: "x"}), want: http.StatusBadRequest},
		"two things": {
			body: holdBody(t, holdRequest{Selector: api.HoldSelector{Agent: "a", Tool: "b"}, By: "ops", Reason: "x"}), want: http.StatusBadRequest,
		},
		"nothing named":       {body: holdBody(t, holdRequest{By: "ops", Reason: "x"}), want: http.StatusBadRequest},
		"control in reason":   {body: holdBody(t, holdRequest{Selector: agent, By: "ops", Reason: "a\x1b[2Jb"}), want: http.StatusBadRequest},
		"control in selector": {body: holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/w\x1b"}, By: "ops", Reason: "x"}), want: http.StatusBadRequest},
		"unknown field":       {body: []byte(`{"selector":{"agent":"pr-review"},"by":"ops","reason":"x","all":true}`), want: http.StatusBadRequest},
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
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops-oncall", Reason: reason}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)

	inbox := readAll(t, h.get("/", nil))
	require.Contains(t, inbox, "Held by ops: target acme/widgets by ops-oncall")
	require.Contains(t, inbox, "bad deploy &lt;script&gt;")
	require.NotContains(t, inbox, "<script>alert(1)")
	page := readAll(t, h.get("/runs/run-1", nil))
	require.Contains(t, page, "Held by ops (target acme/widgets, by ops-oncall): bad deploy &lt;script&gt;")

	resp = h.signedPost("/v1/holds/release", holdBody(t, holdRequest{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops-lead", Reason: "fixed"}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
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
		resp := h.signedPost(path, holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "bad deploy"}), testNow)
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, path)
		require.Equal(t, "temporal is unreachable; try again later", replyOf(t, resp)["error"], path)
	}
	require.Empty(t, h.runs.holdChangesSent())
	list := h.get("/v1/holds", nil)
	require.Equal(t, http.StatusServiceUnavailable, list.StatusCode)
	require.Empty(t, h.server.activeHolds(t.Context()), "a page shows no holds rather than fail")

	h.runs.setUnavailable(false)
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: "bad deploy"}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
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
	resp := h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: reason}), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp = h.signedPost("/v1/holds", holdBody(t, holdRequest{Selector: sel, By: "ops", Reason: reason + "r"}), testNow)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Len(t, h.runs.holdChangesSent(), 1)
}
