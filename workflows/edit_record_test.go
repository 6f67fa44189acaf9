package workflows_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// editScenarios record an approval with edits (its create's response lost,
// so that reconcile proves the edited text) and a respond whose feedback
// leads to a second proposal, approved.
func editScenarios() []recordScenario {
	return []recordScenario{{
		name:   "edited",
		before: faults(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"}),
		decide: func(t *testing.T, c client.Client, id, actionID string) {
			pa := waitForEditableAction(t, c, id, "")
			require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
				ActionID: actionID, Decision: api.DecisionApprove, Approver: "alice", RequestID: id, Channel: "recording",
				ArgsHash: pa.ArgsHash, Args: []byte(`{"body":"Recorded: the review, as alice edited it."}`),
			}))
		},
		check: func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
			// The stack's sandbox is every scenario's: count this run's.
			require.Equal(t, 1, commentsStartingWith(sandbox, "Recorded: the review, as alice edited it."))
			require.Equal(t, "alice", snap.PendingAction.Edit.By)
		},
	}, {
		name: "respond",
		decide: func(t *testing.T, c client.Client, id, actionID string) {
			require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
				ActionID: actionID, Decision: api.DecisionRespond, Approver: "alice", Reason: "shorter", RequestID: id, Channel: "recording",
			}))
			second := waitForEditableAction(t, c, id, actionID)
			require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
				ActionID: second.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: id + "-2", Channel: "recording", ArgsHash: second.ArgsHash,
			}))
		},
		check: func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
			require.Len(t, snap.Actions, 2)
			require.True(t, snap.Actions[0].Feedback)
			// Other scenarios post the same review: count by each action's operationKey.
			require.Equal(t, 1, commentsCarrying(sandbox, operationKeyOf(t, snap, snap.Actions[1].StepID)))
			require.Equal(t, 0, commentsCarrying(sandbox, operationKeyOf(t, snap, snap.Actions[0].StepID)), "the first proposal is never posted")
		},
	}}
}

// commentsCarrying counts the comments marked with operationKey.
func commentsCarrying(sandbox *ghsandbox.Server, operationKey string) int {
	n := 0
	for _, c := range sandbox.Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, api.OperationMarker(operationKey)) {
			n++
		}
	}
	return n
}

func operationKeyOf(t *testing.T, snap api.RunSnapshot, stepID string) string {
	t.Helper()
	for _, st := range snap.Steps {
		if st.ID == stepID {
			require.NotEmpty(t, st.OperationKey, "step %s", stepID)
			return st.OperationKey
		}
	}
	t.Fatalf("no step %s", stepID)
	return ""
}

func commentsStartingWith(sandbox *ghsandbox.Server, prefix string) int {
	n := 0
	for _, c := range sandbox.Comments("acme", "widgets", 1) {
		if strings.HasPrefix(c.Body, prefix) {
			n++
		}
	}
	return n
}
