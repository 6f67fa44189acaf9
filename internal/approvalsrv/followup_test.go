package approvalsrv

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// finishedRun is run-1 as it ended: carol's review of acme/widgets#1.
func finishedRun(approvers ...string) api.RunSnapshot {
	snap := waitingRun(approvers...)
	snap.Run.ID, snap.Run.ConversationID, snap.Run.UserID = "run-1", "run-1", "carol"
	snap.Run.Agent, snap.Run.Status = api.DefaultAgent, api.RunCompleted
	return snap
}

func followUpBody(t *testing.T, fields map[string]any) []byte {
	t.Helper()
	body := map[string]any{"followUp": "run-1", "goal": "also check the tests", "userId": "carol"}
	for k, v := range fields {
		if v == nil {
			delete(body, k)
			continue
		}
		body[k] = v
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	return b
}

func TestSignedFollowUpStartsOnTheEarlierRunsTargetInItsConversationAndItsReplayNamesTheSameRun(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", finishedRun("alice"))
	body := followUpBody(t, nil)

	first := h.start("f-1", body)
	replay := h.start("f-1", body)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, http.StatusAccepted, replay.StatusCode)
	runID := runclient.KeyedRunID("carol", "f-1")
	require.Equal(t, runID, replyOf(t, first)["runId"])
	require.Equal(t, runID, replyOf(t, replay)["runId"], "a replay names the same run, which Start finds instead of starting another")
	want := api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, Agent: api.DefaultAgent, Approvers: []string{"alice"},
		UserID: "carol", Goal: "also check the tests", FollowUp: "run-1", ConversationID: "run-1",
	}
	starts := h.runs.startRequests()
	require.Len(t, starts, 2)
	require.Equal(t, runclient.StartRequest{RunID: runID, Input: want, RequestHash: runclient.RequestHash(want)}, starts[0])
	require.Equal(t, starts[0], starts[1])
}

func TestHostileFollowUpsAreRefusedAndStartNothing(t *testing.T) {
	cases := map[string]struct {
		snap    api.RunSnapshot
		body    []byte
		headers func(body []byte) map[string]string
		want    int
		wantErr string
	}{
		"forged signature": {
			snap: finishedRun("alice"), body: followUpBody(t, nil),
			headers: func(body []byte) map[string]string {
				return startHeaders("f-1", followUpBody(t, map[string]any{"goal": "another goal"}), testNow)
			},
			want: http.StatusUnauthorized,
		},
		"unsigned": {
			snap: finishedRun("alice"), body: followUpBody(t, nil),
			headers: func([]byte) map[string]string {
				return map[string]string{"Content-Type": "application/json", "Idempotency-Key": "f-1"}
			},
			want: http.StatusUnauthorized,
		},
		"from neither the requester nor an approver": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"userId": "mallory"}),
			want: http.StatusForbidden, wantErr: "mallory may not follow up on run run-1: only its requester or an approver may",
		},
		"from a reader of a run without approvers": {
			snap: finishedRun(), body: followUpBody(t, map[string]any{"userId": "mallory"}),
			want: http.StatusForbidden, wantErr: "mallory has read permission on acme/widgets; following up needs write",
		},
		"of a run still open": {
			snap: waitingRun("alice"), body: followUpBody(t, nil),
			want: http.StatusConflict, wantErr: "is still open (waiting_for_user): follow up once it has ended",
		},
		"of an unknown run": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"followUp": "run-404"}),
			want: http.StatusNotFound, wantErr: "there is no run run-404 to follow up on",
		},
		"oversized goal": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"goal": strings.Repeat("x", maxGoalLength+1)}),
			want: http.StatusBadRequest, wantErr: "goal must be valid UTF-8 of at most 2000 bytes",
		},
		"no goal": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"goal": " "}),
			want: http.StatusBadRequest, wantErr: "a follow-up's goal is its new message",
		},
		"its own approvers": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"userId": "mallory", "approvers": []string{"mallory"}}),
			want: http.StatusBadRequest, wantErr: "a follow-up keeps its run's target, agent and approvers",
		},
		"another target": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"repo": "acme/other", "pullNumber": 2}),
			want: http.StatusBadRequest, wantErr: "a follow-up keeps its run's target, agent and approvers",
		},
		"a run ID that is not one": {
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"followUp": "run-1' OR 1=1"}),
			want: http.StatusBadRequest, wantErr: "followUp must be 1 to 128 characters",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", c.snap)
			var resp *http.Response
			if c.headers != nil {
				resp = h.post("/v1/runs", c.body, c.headers(c.body))
			} else {
				resp = h.start("f-1", c.body)
			}
			require.Equal(t, c.want, resp.StatusCode)
			if c.wantErr != "" {
				require.Contains(t, replyOf(t, resp)["error"], c.wantErr)
			}
			require.Empty(t, h.runs.startRequests())
		})
	}
}

// Conversation lists the fake's runs of a conversation, by run ID.
func (f *fakeRuns) Conversation(_ context.Context, conversationID string) ([]runclient.Listed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var rows []runclient.Listed
	for _, id := range slices.Sorted(maps.Keys(f.snaps)) {
		if snap := f.snaps[id]; snap.Run.ConversationID == conversationID {
			rows = append(rows, runclient.Listed{RunID: id, Status: string(snap.Run.Status), Agent: snap.Run.Agent})
		}
	}
	return rows, nil
}

func TestTheFollowUpFormStartsOneRunAsTheSignedInPersonBehindTheCSRFToken(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", finishedRun("alice"))
	second := finishedRun("alice")
	second.Run.ID, second.Run.FollowUp = "run-2", "run-1"
	h.runs.put("run-2", second)
	b := h.browser(map[string]string{"X-Forwarded-User": "carol"})
	page, form := b.openRun("run-1")
	require.Contains(t, page, `action="/runs/run-1/follow-up"`)
	require.Contains(t, page, `<a href="/runs/run-2"><code>run-2</code></a>`, "the page lists the conversation's runs")
	follow := url.Values{"csrf": {form.Get("csrf")}, "requestId": {form.Get("requestId")}, "goal": {"also check the tests"}, "approver": {"mallory"}, "userId": {"mallory"}}

	forged := url.Values{"csrf": {"forged"}, "requestId": {"p-2"}, "goal": {"x"}}
	require.Equal(t, http.StatusForbidden, b.submit("/runs/run-1/follow-up", forged, nil).StatusCode)
	require.Equal(t, http.StatusForbidden, b.submit("/runs/run-1/follow-up", follow, map[string]string{"Sec-Fetch-Site": "cross-site"}).StatusCode)
	require.Empty(t, h.runs.startRequests())

	first := b.submit("/runs/run-1/follow-up", follow, nil)
	again := b.do(http.MethodPost, "/runs/run-1/follow-up", follow, nil)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	runID := runclient.KeyedRunID("carol", "page-follow-up\x00run-1\x00"+form.Get("requestId"))
	require.Equal(t, runID, replyOf(t, first)["runId"])
	require.Equal(t, http.StatusSeeOther, again.StatusCode)
	require.Equal(t, "/runs/"+runID, again.Header.Get("Location"), "the form sent twice names one run")
	starts := h.runs.startRequests()
	require.Len(t, starts, 2)
	require.Equal(t, "carol", starts[0].Input.UserID, "who follows up is the signed-in person, never a field")
	require.Equal(t, "run-1", starts[0].Input.FollowUp)
	require.Equal(t, starts[0], starts[1])
}

func TestTheFollowUpFormOfSomeoneWhoMayNotIs403AndAnOpenRunHasNone(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", finishedRun("alice"))
	b := h.browser(map[string]string{"X-Forwarded-User": "mallory"})
	_, form := b.openRun("run-1")

	resp := b.submit("/runs/run-1/follow-up", url.Values{"csrf": {form.Get("csrf")}, "requestId": {"p-1"}, "goal": {"mine"}}, nil)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "mallory may not follow up on run run-1")
	require.Empty(t, h.runs.startRequests())

	h.runs.put("run-1", waitingRun("alice"))
	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
	require.NotContains(t, page, "/follow-up", "an open run offers no follow-up")
}

// A follow-up that cannot be judged starts nothing and says why: without
// who sends it; when the earlier run cannot be read; when GitHub cannot say
// whether its sender writes to a run that names no approvers.
func TestAFollowUpThatCannotBeJudgedStartsNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", finishedRun("alice"))
	resp := h.start("f-1", followUpBody(t, map[string]any{"userId": nil}))
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Equal(t, "missing field: userId", replyOf(t, resp)["error"])

	h.runs.setUnavailable(true)
	resp = h.start("f-2", followUpBody(t, nil))
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	require.Equal(t, "temporal is unreachable; try again later", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.startRequests())

	h = newHarness(t, testConfig(), failingPermissions{})
	h.runs.put("run-1", finishedRun())
	resp = h.start("f-3", followUpBody(t, map[string]any{"userId": "bob"}))
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	require.Equal(t, "could not check the permission to follow up; try again later", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.startRequests())

	h = newHarness(t, testConfig(), writers{})
	h.runs.put("run-1", finishedRun())
	resp = h.start("f-4", followUpBody(t, map[string]any{"userId": "bob"}))
	require.Equal(t, http.StatusAccepted, resp.StatusCode, "a writer may follow up on a run without approvers")
	require.Len(t, h.runs.startRequests(), 1)
	require.Equal(t, "bob", h.runs.startRequests()[0].Input.UserID)
}
