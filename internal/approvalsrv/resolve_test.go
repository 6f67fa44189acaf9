package approvalsrv

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const resolvePath = "/v1/runs/run-1/steps/step-4/resolve"

func runWithUnknownOutcome() api.RunSnapshot {
	snap := waitingRun()
	snap.Run.Status = api.RunReconciling
	snap.Steps = append(snap.Steps, api.AgentStep{
		ID: "step-4", Sequence: 4, Type: api.StepToolCall, ToolName: "create_issue_comment",
		Status: api.StepOutcomeUnknown, Attempt: 3,
	})
	return snap
}

func resolveBody(t *testing.T, decision, by, requestID string) []byte {
	t.Helper()
	body, err := json.Marshal(resolveRequest{Decision: decision, By: by, RequestID: requestID, ExternalResourceID: "1234"})
	require.NoError(t, err)
	return body
}

func TestSignedResolveOfUnknownOutcomeSendsTheResolveSignal(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", runWithUnknownOutcome())

	resp := h.signedPost(resolvePath, resolveBody(t, "mark_succeeded", "ops", "r-1"), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ResolveSignal{{StepID: "step-4", Decision: "mark_succeeded", ExternalResourceID: "1234", By: "ops"}},
		h.runs.resolveSignals())
}

func TestRepeatedResolveRequestSendsOneSignal(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", runWithUnknownOutcome())
	body := resolveBody(t, "retry", "ops", "r-1")

	first := h.signedPost(resolvePath, body, testNow)
	second := h.signedPost(resolvePath, body, testNow)

	require.Equal(t, http.StatusAccepted, first.StatusCode)
	require.Equal(t, http.StatusAccepted, second.StatusCode)
	require.Len(t, h.runs.resolveSignals(), 1)
}

func TestResolveRefusals(t *testing.T) {
	cases := map[string]struct {
		path string
		body string
		sign bool
		want int
	}{
		"unknown decision": {resolvePath, `{"decision":"ignore","by":"ops","requestId":"r"}`, true, http.StatusBadRequest},
		"missing by":       {resolvePath, `{"decision":"retry","requestId":"r"}`, true, http.StatusBadRequest},
		"unsigned":         {resolvePath, `{"decision":"retry","by":"ops","requestId":"r"}`, false, http.StatusUnauthorized},
		"unknown step":     {"/v1/runs/run-1/steps/step-9/resolve", `{"decision":"retry","by":"ops","requestId":"r"}`, true, http.StatusNotFound},
		"step not unknown": {"/v1/runs/run-1/steps/step-2/resolve", `{"decision":"retry","by":"ops","requestId":"r"}`, true, http.StatusConflict},
		"unknown run":      {"/v1/runs/run-9/steps/step-4/resolve", `{"decision":"retry","by":"ops","requestId":"r"}`, true, http.StatusNotFound},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", runWithUnknownOutcome())
			var resp *http.Response
			if c.sign {
				resp = h.signedPost(c.path, []byte(c.body), testNow)
			} else {
				resp = h.post(c.path, []byte(c.body), map[string]string{"Content-Type": "application/json"})
			}

			require.Equal(t, c.want, resp.StatusCode)
			require.NotEmpty(t, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.resolveSignals())
		})
	}
}
