package approvalsrv

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const cancelPath = "/v1/runs/run-1/cancel"

func cancelBody(t *testing.T, by, reason, requestID string) []byte {
	t.Helper()
	body, err := json.Marshal(cancelRequest{By: by, Reason: reason, RequestID: requestID})
	require.NoError(t, err)
	return body
}

func TestSignedCancelByAnApproverSendsOneSignalAndItsReplayNone(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	body := cancelBody(t, "alice", "wrong pull request", "c-1")

	first := h.signedPost(cancelPath, body, testNow)
	require.Equal(t, http.StatusAccepted, first.StatusCode)
	replay := h.signedPost(cancelPath, body, testNow)
	require.Equal(t, http.StatusAccepted, replay.StatusCode)
	other := h.signedPost(cancelPath, cancelBody(t, "alice", "another reason", "c-1"), testNow)
	require.Equal(t, http.StatusConflict, other.StatusCode)

	require.Equal(t, []api.CancelSignal{{By: "alice", Reason: "wrong pull request", RequestID: "c-1", Channel: channelAPI}}, h.runs.cancelSignals())
}

func TestSignedCancelByTheRequesterIsSent(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.Run.UserID = "carol"
	h.runs.put("run-1", snap)

	resp := h.signedPost(cancelPath, cancelBody(t, "carol", "not needed", "c-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, h.runs.cancelSignals(), 1)
}

func TestHostileCancelsAreRefusedAndSendNothing(t *testing.T) {
	cases := map[string]struct {
		approvers []string
		body      []byte
		headers   func(body []byte) map[string]string
		want      int
		wantErr   string
	}{
		"from neither the requester nor an approver": {
			approvers: []string{"alice"}, body: cancelBody(t, "mallory", "mine now", "m-1"),
			want: http.StatusForbidden, wantErr: "mallory may not cancel this run",
		},
		"from a reader of a run without approvers": {
			body: cancelBody(t, "mallory", "mine now", "m-1"),
			want: http.StatusForbidden, wantErr: "mallory has read permission on acme/widgets; cancelling needs write",
		},
		"forged signature": {
			approvers: []string{"alice"}, body: cancelBody(t, "alice", "stop", "f-1"),
			headers: func([]byte) map[string]string {
				h := signedHeaders(http.MethodPost, cancelPath, cancelBody(t, "alice", "other body", "f-1"), testNow)
				h["Content-Type"] = "application/json"
				return h
			},
			want: http.StatusUnauthorized,
		},
		"unsigned": {
			approvers: []string{"alice"}, body: cancelBody(t, "alice", "stop", "u-1"),
			headers: func([]byte) map[string]string { return map[string]string{"Content-Type": "application/json"} },
			want:    http.StatusUnauthorized,
		},
		"oversized reason": {
			approvers: []string{"alice"}, body: cancelBody(t, "alice", strings.Repeat("x", api.MaxCancelReasonBytes+1), "o-1"),
			want: http.StatusBadRequest, wantErr: "reason must be valid UTF-8 of at most 2000 bytes",
		},
		"no reason": {
			approvers: []string{"alice"}, body: cancelBody(t, "alice", "  ", "n-1"),
			want: http.StatusBadRequest, wantErr: "a cancel must say why",
		},
		"no requestId": {
			approvers: []string{"alice"}, body: cancelBody(t, "alice", "stop", ""),
			want: http.StatusBadRequest, wantErr: "missing field: requestId",
		},
		"unknown field": {
			approvers: []string{"alice"}, body: []byte(`{"by":"alice","reason":"stop","requestId":"x","force":true}`),
			want: http.StatusBadRequest, wantErr: "unknown field",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil, c.approvers...)
			var resp *http.Response
			if c.headers != nil {
				resp = h.post(cancelPath, c.body, c.headers(c.body))
			} else {
				resp = h.signedPost(cancelPath, c.body, testNow)
			}
			require.Equal(t, c.want, resp.StatusCode)
			if c.wantErr != "" {
				require.Contains(t, replyOf(t, resp)["error"], c.wantErr)
			}
			require.Empty(t, h.runs.cancelSignals())
		})
	}
}

func TestSignedCancelOfAnEndedRunIs409(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.Run.Status = api.RunCompleted
	h.runs.put("run-1", snap)

	resp := h.signedPost(cancelPath, cancelBody(t, "alice", "stop", "c-1"), testNow)

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Empty(t, h.runs.cancelSignals())
}

func TestCancelButtonCancelsAsTheSignedInPersonBehindTheCSRFToken(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})
	page, form := b.openRun("run-1")
	require.Contains(t, page, `action="/runs/run-1/cancel"`)
	cancel := url.Values{"csrf": {form.Get("csrf")}, "requestId": {"page-1"}, "reason": {"wrong pull request"}, "approver": {"mallory"}}

	forged := url.Values{"csrf": {"forged"}, "requestId": {"page-2"}, "reason": {"x"}}
	require.Equal(t, http.StatusForbidden, b.submit("/runs/run-1/cancel", forged, nil).StatusCode)
	require.Equal(t, http.StatusForbidden, b.submit("/runs/run-1/cancel", cancel, map[string]string{"Sec-Fetch-Site": "cross-site"}).StatusCode)
	require.Empty(t, h.runs.cancelSignals())

	resp := b.submit("/runs/run-1/cancel", cancel, nil)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.CancelSignal{{By: "alice", Reason: "wrong pull request", RequestID: "page-1", Channel: channelWeb}}, h.runs.cancelSignals())
}

func TestCancelButtonOfSomeoneWhoMayNotCancelIs403(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	b := h.browser(map[string]string{"X-Forwarded-User": "mallory"})
	_, form := b.openRun("run-1")

	resp := b.submit("/runs/run-1/cancel", url.Values{"csrf": {form.Get("csrf")}, "requestId": {"p-1"}, "reason": {"mine"}}, nil)

	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Empty(t, h.runs.cancelSignals())
}
