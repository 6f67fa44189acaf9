package approvalsrv

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

const batchPath = "/v1/runs/run-1/decision"

// act2Hash is twoWaitingRun's second action's input.
var act2Hash = commentHash("File an issue: TODO in cache.go.")

// twoWaitingRun is waitingRun with a second waiting action, act-2, proposed
// in the same model turn, on a run of the triage agent when batches is set.
func twoWaitingRun(batches bool, approvers ...string) api.RunSnapshot {
	snap := waitingRun(approvers...)
	second := *snap.PendingAction
	second.ID, second.StepID, second.ArgsHash = "act-2", "step-4", act2Hash
	second.ToolName, second.Preview = "create_issue", "File an issue: TODO in cache.go."
	snap.Actions = append(snap.Actions, second)
	snap.PendingAction = &snap.Actions[1]
	snap.Run.Agent = "pr-review"
	if batches {
		snap.Run.Agent, snap.Run.BatchApproval = "triage", true
	}
	return snap
}

func batchBody(t *testing.T, approver, requestID string, refs ...api.ActionRef) []byte {
	t.Helper()
	body, err := json.Marshal(Batch{
		Decision: Decision{Decision: api.DecisionApprove, Approver: approver, RequestID: requestID},
		Actions:  refs,
	})
	require.NoError(t, err)
	return body
}

var bothActions = []api.ActionRef{{ActionID: "act-1", ArgsHash: act1Hash}, {ActionID: "act-2", ArgsHash: act2Hash}}

func TestSignedDecisionWithAStaleArgsHashAnswers409AndSendsNothing(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	stale := commentHash("an older preview")
	body, err := json.Marshal(Decision{Decision: "approve", Approver: "alice", RequestID: "req-1", ArgsHash: stale})
	require.NoError(t, err)

	resp := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "no longer has the input (argsHash)")
	require.Empty(t, h.runs.approvalSignals())
	require.Len(t, h.runs.refusalSignals(), 1, "an authenticated 409 is recorded in the run")
}

func TestSignedDecisionWithTheCurrentArgsHashIsSentWithIt(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	body, err := json.Marshal(Decision{Decision: "approve", Approver: "alice", RequestID: "req-1", ArgsHash: act1Hash})
	require.NoError(t, err)

	resp := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1)
	require.Equal(t, act1Hash, sigs[0].ArgsHash)
	require.Empty(t, sigs[0].Batch)
}

func TestSignedDecisionWithAMalformedArgsHashAnswers400(t *testing.T) {
	h := waitingHarness(t, nil)
	for _, hash := range []string{"abc", strings.ToUpper(act1Hash), act1Hash + "0", strings.Repeat("g", 64)} {
		body := []byte(`{"decision":"approve","approver":"alice","requestId":"r-` + hash + `","argsHash":"` + hash + `"}`)
		resp := h.signedPost(decisionPath, body, testNow)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, hash)
	}
	require.Empty(t, h.runs.approvalSignals())
}

func TestGoodBatchSendsOneSignalWithTheRestInBatch(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(true, "Alice"))

	resp := h.signedPost(batchPath, batchBody(t, "alice", "req-1", bothActions...), testNow)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.ApprovalSignal{{
		ActionID: "act-1", ArgsHash: act1Hash, Batch: []api.ActionRef{{ActionID: "act-2", ArgsHash: act2Hash}},
		Decision: "approve", Approver: "alice", RequestID: "req-1", Channel: "signed API",
	}}, h.runs.approvalSignals())

	repeat := h.signedPost(batchPath, batchBody(t, "alice", "req-1", bothActions...), testNow)
	require.Equal(t, http.StatusAccepted, repeat.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1, "a repeated requestId signals nothing new")
}

func TestBatchOnARunWhoseAgentTakesNoBatchesIsRefused(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(false))

	resp := h.signedPost(batchPath, batchBody(t, "alice", "req-1", bothActions...), testNow)

	require.Equal(t, http.StatusUnprocessableEntity, resp.StatusCode)
	require.Contains(t, replyOf(t, resp)["error"], "agent pr-review takes one decision per action")
	require.Empty(t, h.runs.approvalSignals())
}

func TestBatchThatCannotBeTakenWholeIsRefusedAndSendsNothing(t *testing.T) {
	decided := twoWaitingRun(true)
	decided.Actions[1].State, decided.Actions[1].DecidedBy = api.ActionRejected, "bob"
	decided.PendingAction = &decided.Actions[1]
	stale := commentHash("an older preview")
	cases := map[string]struct {
		snap api.RunSnapshot
		refs []api.ActionRef
		code int
		says string
	}{
		"an action already decided": {decided, bothActions, http.StatusConflict, "already rejected by bob"},
		"another run's action": {twoWaitingRun(true), []api.ActionRef{bothActions[0], {ActionID: "act-3", ArgsHash: act1Hash}},
			http.StatusUnprocessableEntity, "act-3 is not an action of run run-1"},
		"a stale argsHash": {twoWaitingRun(true), []api.ActionRef{bothActions[0], {ActionID: "act-2", ArgsHash: stale}},
			http.StatusConflict, "action act-2 no longer has the input"},
		"an approver the run does not list": {twoWaitingRun(true, "bob"), bothActions, http.StatusForbidden, "alice is not an approver"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", c.snap)
			other := waitingRun()
			other.PendingAction.ID = "act-3"
			other.Actions = []api.PendingAction{*other.PendingAction}
			h.runs.put("run-2", other)

			resp := h.signedPost(batchPath, batchBody(t, "alice", "req-1", c.refs...), testNow)

			require.Equal(t, c.code, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], c.says)
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestMalformedBatchAnswers400(t *testing.T) {
	many := make([]api.ActionRef, api.MaxBatch+1)
	for i := range many {
		many[i] = api.ActionRef{ActionID: "act-" + strings.Repeat("a", i+1), ArgsHash: act1Hash}
	}
	cases := map[string][]byte{
		"one action":              batchBody(t, "alice", "r-1", bothActions[0]),
		"no actions":              batchBody(t, "alice", "r-2"),
		"too many":                batchBody(t, "alice", "r-3", many...),
		"a duplicate":             batchBody(t, "alice", "r-4", bothActions[0], bothActions[1], bothActions[0]),
		"a missing hash":          batchBody(t, "alice", "r-5", bothActions[0], api.ActionRef{ActionID: "act-2"}),
		"a bad action":            batchBody(t, "alice", "r-6", bothActions[0], api.ActionRef{ActionID: "act-2'", ArgsHash: act2Hash}),
		"a hash beside":           []byte(`{"decision":"approve","approver":"alice","requestId":"r-7","argsHash":"` + act1Hash + `","actions":[{"actionId":"act-1","argsHash":"` + act1Hash + `"},{"actionId":"act-2","argsHash":"` + act2Hash + `"}]}`),
		"a reject without reason": []byte(`{"decision":"reject","approver":"alice","requestId":"r-8","actions":[{"actionId":"act-1","argsHash":"` + act1Hash + `"},{"actionId":"act-2","argsHash":"` + act2Hash + `"}]}`),
	}
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(true))
	for name, body := range cases {
		resp := h.signedPost(batchPath, body, testNow)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, name)
	}
	// The per-action route does not take a batch: actions is unknown there.
	resp := h.signedPost(decisionPath, batchBody(t, "alice", "r-9", bothActions...), testNow)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
}

func TestBatchNeedsItsOwnSignature(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(true))
	h.runs.put("run-2", twoWaitingRun(true))
	body := batchBody(t, "alice", "req-1", bothActions...)

	unsigned := h.post(batchPath, body, map[string]string{"Content-Type": "application/json"})
	replayed := signedHeaders(http.MethodPost, "/v1/runs/run-2/decision", body, testNow)
	replayed["Content-Type"] = "application/json"
	otherRun := h.post(batchPath, body, replayed)
	stale := h.signedPost(batchPath, body, testNow.Add(-6*time.Minute))

	require.Equal(t, http.StatusUnauthorized, unsigned.StatusCode)
	require.Equal(t, http.StatusUnauthorized, otherRun.StatusCode)
	require.Equal(t, http.StatusUnauthorized, stale.StatusCode)
	require.Empty(t, h.runs.approvalSignals())
	require.Empty(t, h.runs.refusalSignals(), "an unauthenticated request never writes into a run")
}
