package approvalsrv

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// editableHarness is waitingHarness with act-1 editable, as a run shows an
// action whose agent lets it be edited.
func editableHarness(t *testing.T, approvers ...string) *harness {
	t.Helper()
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun(approvers...)
	snap.Actions[0].Editable = true
	snap.Actions[0].Args = json.RawMessage(`{"body":"Looks good, but ` + "`fmt.Println`" + ` is left in cache.go."}`)
	snap.Actions[0].ArgsSchema = json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","minLength":1,"maxLength":65000}},"required":["body"]}`)
	snap.PendingAction = &snap.Actions[0]
	h.runs.put("run-1", snap)
	return h
}

func editBody(t *testing.T, approver, requestID, argsHash string, args any) []byte {
	t.Helper()
	raw, err := json.Marshal(map[string]any{"decision": "approve", "approver": approver, "requestId": requestID, "argsHash": argsHash, "args": args})
	require.NoError(t, err)
	return raw
}

func TestSignedApproveWithEditsForwardsTheEditedArgumentsOnce(t *testing.T) {
	h := editableHarness(t, "alice")
	body := editBody(t, "alice", "req-1", act1Hash, map[string]string{"body": "Shorter."})

	for range 2 { // a replay answers as the first and sends nothing new
		resp := h.signedPost(decisionPath, body, testNow)
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
	}
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1)
	require.JSONEq(t, `{"body":"Shorter."}`, string(sigs[0].Args))
	require.Equal(t, act1Hash, sigs[0].ArgsHash, "the edit is bound to the version it edits")

	other := editBody(t, "alice", "req-1", act1Hash, map[string]string{"body": "Other."})
	require.Equal(t, http.StatusConflict, h.signedPost(decisionPath, other, testNow).StatusCode, "the same requestId with other args is no replay")
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestAnEditOrFeedbackThatMayNotCountSendsNothing(t *testing.T) {
	big := map[string]string{"body": strings.Repeat("x", api.MaxEditArgsBytes)}
	for name, tc := range map[string]struct {
		body []byte
		code int
	}{
		"from the wrong person":          {editBody(t, "mallory", "req-1", act1Hash, map[string]string{"body": "x"}), http.StatusForbidden},
		"oversized args":                 {editBody(t, "alice", "req-1", act1Hash, big), http.StatusBadRequest},
		"args that are not an object":    {editBody(t, "alice", "req-1", act1Hash, "x"), http.StatusBadRequest},
		"without the argsHash edited":    {editBody(t, "alice", "req-1", "", map[string]string{"body": "x"}), http.StatusBadRequest},
		"on a stale version":             {editBody(t, "alice", "req-1", strings.Repeat("b", 64), map[string]string{"body": "x"}), http.StatusConflict},
		"with a reject":                  {[]byte(`{"decision":"reject","approver":"alice","reason":"no","requestId":"r","argsHash":"` + act1Hash + `","args":{"body":"x"}}`), http.StatusBadRequest},
		"feedback without text":          {[]byte(`{"decision":"respond","approver":"alice","requestId":"r"}`), http.StatusBadRequest},
		"oversized feedback":             {[]byte(`{"decision":"respond","approver":"alice","requestId":"r","reason":"` + strings.Repeat("x", api.MaxFeedbackBytes+1) + `"}`), http.StatusBadRequest},
		"feedback from the wrong person": {[]byte(`{"decision":"respond","approver":"mallory","requestId":"r","reason":"shorter"}`), http.StatusForbidden},
	} {
		t.Run(name, func(t *testing.T) {
			h := editableHarness(t, "alice")
			resp := h.signedPost(decisionPath, tc.body, testNow)
			require.Equal(t, tc.code, resp.StatusCode, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestAForgedEditAnswers401AndSendsNothing(t *testing.T) {
	h := editableHarness(t, "alice")
	signed := decisionBody(t, "approve", "alice", "", "req-1")
	forged := editBody(t, "alice", "req-1", act1Hash, map[string]string{"body": "Mallory's text."})
	headers := signedHeaders(http.MethodPost, decisionPath, signed, testNow)
	resp := h.post(decisionPath, forged, headers)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestAnEditOfAnActionItsAgentForbidsEditingAnswers409(t *testing.T) {
	h := waitingHarness(t, nil, "alice") // act-1 is not editable
	resp := h.signedPost(decisionPath, editBody(t, "alice", "req-1", act1Hash, map[string]string{"body": "x"}), testNow)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "may not be edited")
	require.Empty(t, h.runs.approvalSignals())
}

func TestSignedRespondForwardsTheFeedback(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	resp := h.signedPost(decisionPath, []byte(`{"decision":"respond","approver":"alice","requestId":"r-1","reason":"shorter"}`), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1)
	require.Equal(t, api.DecisionRespond, sigs[0].Decision)
	require.Equal(t, "shorter", sigs[0].Reason)
}

func TestACommentRespondsWithFeedbackButCannotEdit(t *testing.T) {
	cmd, err := parseCommentCommand("/agentrun respond act-1 skip file gen.go")
	require.NoError(t, err)
	require.Equal(t, commentCommand{Decision: api.DecisionRespond, ActionID: "act-1", Reason: "skip file gen.go"}, cmd)
	_, err = parseCommentCommand("/agentrun respond act-1")
	require.ErrorContains(t, err, "usage: /agentrun respond <actionId> <feedback>")
	_, err = parseCommentCommand(`/agentrun approve act-1 {"body":"x"}`)
	require.ErrorContains(t, err, "approve takes only an action ID")
}
