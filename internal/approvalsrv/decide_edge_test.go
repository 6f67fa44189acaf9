package approvalsrv

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// An action keeps the approvers it was proposed with; the run's list only
// stands in for an action that names none.
func TestActionsOwnApproversDecideOverTheRuns(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.Run.Approvers = []string{"bob"}
	h.runs.put("run-1", snap)

	byBob := h.signedPost(decisionPath, decisionBody(t, "approve", "bob", "", "req-1"), testNow)
	byAlice := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-2"), testNow)

	require.Equal(t, http.StatusForbidden, byBob.StatusCode)
	require.Equal(t, http.StatusAccepted, byAlice.StatusCode)
	signals := h.runs.approvalSignals()
	require.Len(t, signals, 1)
	require.Equal(t, "alice", signals[0].Approver)
}
