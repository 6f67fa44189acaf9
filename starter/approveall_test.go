package main

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// runWaitingOn is a snapshot with n waiting actions after a decided one.
func runWaitingOn(n int, batches bool) api.RunSnapshot {
	snap := api.RunSnapshot{Run: api.Run{Agent: "triage", BatchApproval: batches}}
	snap.Actions = append(snap.Actions, api.PendingAction{ID: "act-old", ArgsHash: "h-old", State: api.ActionApproved})
	for i := range n {
		snap.Actions = append(snap.Actions, api.PendingAction{ID: fmt.Sprintf("act-%d", i), ArgsHash: fmt.Sprintf("h-%d", i), State: api.ActionWaiting})
	}
	return snap
}

func TestApproveAllIsOneBatchSignalWhenTheAgentTakesBatches(t *testing.T) {
	base := api.ApprovalSignal{Decision: api.DecisionApprove, Approver: "alice"}

	sigs := approveAllSignals(runWaitingOn(3, true), base)

	require.Len(t, sigs, 1)
	require.Equal(t, "act-0", sigs[0].ActionID)
	require.Equal(t, "h-0", sigs[0].ArgsHash)
	require.Equal(t, []api.ActionRef{{ActionID: "act-1", ArgsHash: "h-1"}, {ActionID: "act-2", ArgsHash: "h-2"}}, sigs[0].Batch)
	require.Equal(t, "alice", sigs[0].Approver)
	require.NotEmpty(t, sigs[0].RequestID)
}

func TestApproveAllIsOneSignalPerActionWhenTheAgentTakesNoBatches(t *testing.T) {
	sigs := approveAllSignals(runWaitingOn(2, false), api.ApprovalSignal{Decision: api.DecisionApprove, Approver: "alice"})

	require.Len(t, sigs, 2)
	for i, sig := range sigs {
		require.Equal(t, fmt.Sprintf("act-%d", i), sig.ActionID)
		require.Equal(t, fmt.Sprintf("h-%d", i), sig.ArgsHash, "each is bound to the input the run showed")
		require.Empty(t, sig.Batch)
	}
	require.NotEqual(t, sigs[0].RequestID, sigs[1].RequestID)
}

func TestApproveAllSplitsMoreThanMaxBatchActions(t *testing.T) {
	sigs := approveAllSignals(runWaitingOn(api.MaxBatch+1, true), api.ApprovalSignal{Decision: api.DecisionApprove, Approver: "alice"})

	require.Len(t, sigs, 2)
	require.Len(t, sigs[0].Batch, api.MaxBatch-1)
	require.Equal(t, fmt.Sprintf("act-%d", api.MaxBatch), sigs[1].ActionID)
	require.Empty(t, sigs[1].Batch)
	require.Empty(t, approveAllSignals(runWaitingOn(0, true), api.ApprovalSignal{}), "nothing waits, nothing to send")
}
