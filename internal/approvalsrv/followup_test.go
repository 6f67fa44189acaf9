package approvalsrv

import (
	"encoding/json"
	"net/http"
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
			snap: finishedRun("alice"), body: followUpBody(t, map[string]any{"goal": strings.Repeat("x", MaxGoalLength+1)}),
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
