package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/ghsandbox"

	"github.com/agentrun/agentrun/internal/testkit"
)

// twoTodosSandbox serves the default fixture plus ghsandbox.TwoTodosPull, and
// a worker on its own queue whose GitHub tools call it.
func (s *stack) twoTodosSandbox(queue string) *ghsandbox.Server {
	s.t.Helper()
	f := ghsandbox.DefaultFixture()
	ghsandbox.AddTwoTodosPull(&f)
	sandbox := ghsandbox.New(f)
	testkit.StartSandboxWorker(s.t, s.temporal, queue, sandbox)
	return sandbox
}

func (s *stack) signedBatch(runID string, req approvalsrv.Batch) (int, map[string]string) {
	s.t.Helper()
	return s.signedJSON("/v1/runs/"+runID+"/decision", req)
}

func TestTriageRunApprovedAsOneBatchFilesEachIssueExactlyOnce(t *testing.T) {
	s := startStack(t)
	const queue, runID = "approval-e2e-triage", "triage-batch-1"
	sandbox := s.twoTodosSandbox(queue)
	_, err := s.temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: runID, TaskQueue: queue}, api.WorkflowName,
		api.RunInput{Repo: "acme/widgets", PullNumber: ghsandbox.TwoTodosPull, UserID: "carol", Agent: agents.Triage, Approvers: []string{"alice"}})
	require.NoError(t, err)
	var refs []api.ActionRef
	require.Eventually(t, func() bool {
		snap, ok := s.snapshot(runID)
		refs = nil
		for _, a := range snap.Actions {
			if a.State == api.ActionWaiting {
				refs = append(refs, api.ActionRef{ActionID: a.ID, ArgsHash: a.ArgsHash})
			}
		}
		return ok && len(refs) == 2
	}, waitLong, 50*time.Millisecond, "run %s never had two actions waiting", runID)
	require.Empty(t, sandbox.Issues("acme", "widgets"), "nothing is filed before approval")
	require.Eventually(t, func() bool { return s.inboxHas(refs[0].ActionID) && s.inboxHas(refs[1].ActionID) }, waitLong, 100*time.Millisecond,
		"the inbox never listed both actions")
	page := s.page("/runs/" + runID)
	require.Contains(t, page, "Approve all 2")

	stale := []api.ActionRef{refs[0], {ActionID: refs[1].ActionID, ArgsHash: strings.Repeat("0", 64)}}
	staleCode, staleAnswer := s.signedBatch(runID, approvalsrv.Batch{Decision: approvalsrv.Decision{Decision: "approve", Approver: "alice", RequestID: "e2e-stale"}, Actions: stale})
	require.Equal(t, http.StatusConflict, staleCode, staleAnswer)

	req := approvalsrv.Batch{Decision: approvalsrv.Decision{Decision: "approve", Approver: "alice", RequestID: "e2e-batch"}, Actions: refs}
	code, answer := s.signedBatch(runID, req)
	require.Equal(t, http.StatusAccepted, code, answer)
	repeatCode, _ := s.signedBatch(runID, req)
	require.Equal(t, http.StatusAccepted, repeatCode)

	s.followEvents(runID)
	snap, ok := s.snapshot(runID)
	require.True(t, ok)
	require.Equal(t, api.RunCompleted, snap.Run.Status, snap.Run.Error)
	require.Len(t, snap.Actions, 2)
	for _, a := range snap.Actions {
		require.Equal(t, api.ActionApproved, a.State, a.ID)
		require.Equal(t, "alice", a.DecidedBy)
	}
	sigs := s.approvalSignals(runID)
	require.Len(t, sigs, 1, "one signal for the batch")
	require.Equal(t, refs[0], api.ActionRef{ActionID: sigs[0].ActionID, ArgsHash: sigs[0].ArgsHash})
	require.Equal(t, refs[1:], sigs[0].Batch)
	issues := sandbox.Issues("acme", "widgets")
	require.Len(t, issues, 2, "each issue filed exactly once")
	require.NotEqual(t, issues[0].Body, issues[1].Body)
	for _, is := range issues {
		require.Contains(t, is.Body, "<!-- agent-operation:")
	}
}

// approvalSignals are the approval signals the run's history holds.
func (s *stack) approvalSignals(runID string) []api.ApprovalSignal {
	s.t.Helper()
	var sigs []api.ApprovalSignal
	iter := s.temporal.GetWorkflowHistory(context.Background(), runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(s.t, err)
		attrs := ev.GetWorkflowExecutionSignaledEventAttributes()
		if attrs == nil || attrs.GetSignalName() != api.SignalApproval {
			continue
		}
		var sig api.ApprovalSignal
		require.NoError(s.t, converter.GetDefaultDataConverter().FromPayloads(attrs.GetInput(), &sig))
		sigs = append(sigs, sig)
	}
	return sigs
}
