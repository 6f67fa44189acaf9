package runclient

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/devserver"
)

// stubInput is what the stub AgentRun of these tests is started with. The
// client only sees the wire contract, so a stub that keeps it stands in for
// the real workflow without a model or GitHub.
type stubInput struct {
	// ActionID, when set, makes the run wait for a person on that action.
	ActionID  string
	ExpiresIn time.Duration
	// Approvers are the run's, for the inbox's fallback.
	Approvers []string
}

// stubAgentRun keeps AgentRun's contract: the status and action search
// attributes, the run and events queries, and the approval signal. It
// returns the approver of the first decision.
func stubAgentRun(ctx workflow.Context, in stubInput) (string, error) {
	info := workflow.GetInfo(ctx)
	now := workflow.Now(ctx)
	snap := api.RunSnapshot{Run: api.Run{
		ID: info.WorkflowExecution.ID, Repo: "acme/widgets", PullNumber: 1,
		Status: api.RunRunning, Approvers: in.Approvers,
	}}
	if in.ActionID != "" {
		snap.Run.Status = api.RunWaitingForUser
		snap.Label = "waiting for approval"
		action := api.PendingAction{
			ID: in.ActionID, StepID: "step-2", ToolName: "create_issue_comment", State: api.ActionWaiting,
			Preview: "LGTM", Target: "acme/widgets#1", RequestedBy: "carol",
			CreatedAt: now, ExpiresAt: now.Add(in.ExpiresIn),
		}
		snap.PendingAction, snap.Actions = &action, []api.PendingAction{action}
		if err := workflow.UpsertTypedSearchAttributes(ctx,
			api.SearchAttrStatus.ValueSet(string(api.RunWaitingForUser)),
			api.SearchAttrActionIDs.ValueSet([]string{in.ActionID})); err != nil {
			return "", err
		}
	}
	events := []api.Event{
		{Sequence: 1, At: now, Type: "run_started"},
		{Sequence: 2, At: now, Type: "step_status", StepID: "step-1", Status: "succeeded"},
		{Sequence: 3, At: now, Type: "action_state", StepID: "step-2", Status: "waiting"},
	}
	if err := workflow.SetQueryHandler(ctx, api.QueryRun, func() (api.RunSnapshot, error) { return snap, nil }); err != nil {
		return "", err
	}
	err := workflow.SetQueryHandler(ctx, api.QueryEvents, func(since int64) ([]api.Event, error) {
		var after []api.Event
		for _, e := range events {
			if e.Sequence > since {
				after = append(after, e)
			}
		}
		return after, nil
	})
	if err != nil {
		return "", err
	}
	var sig api.ApprovalSignal
	workflow.GetSignalChannel(ctx, api.SignalApproval).Receive(ctx, &sig)
	return sig.Approver, nil
}

var queueSeq atomic.Int64

// startStub starts a dev server and a worker running the stub, and returns
// a run client and the worker's task queue.
func startStub(t *testing.T) (*Client, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	server := devserver.Start(t, devserver.Options{})
	queue := fmt.Sprintf("runclient-%d", queueSeq.Add(1))
	w := worker.New(server.Client(), queue, worker.Options{})
	w.RegisterWorkflowWithOptions(stubAgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return New(server.Client(), Options{CallTimeout: 30 * time.Second}), queue
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestStartingTheSameIDAgainReusesTheOpenRunAndNeverRestartsAClosedOne(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	req := StartRequest{RunID: RunID("acme/widgets", 1, "ticket-42"), TaskQueue: queue, Input: api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ConversationID: "conv-1",
	}}

	first, err := rc.Start(ctx, req)
	require.NoError(t, err)
	again, err := rc.Start(ctx, req)
	require.NoError(t, err)
	require.Equal(t, Started{RunID: req.RunID}, first)
	require.Equal(t, Started{RunID: req.RunID}, again, "an open run is reused, not reported as closed")
	firstExecution := rc.Temporal().GetWorkflow(ctx, req.RunID, "").GetRunID()
	described, err := rc.Temporal().DescribeWorkflow(ctx, req.RunID, "")
	require.NoError(t, err)
	summary, err := described.GetStaticSummary()
	require.NoError(t, err)
	require.Equal(t, "Review acme/widgets#1 for carol", summary, "the Temporal UI names the run")

	require.NoError(t, rc.Decide(ctx, req.RunID, api.ApprovalSignal{ActionID: "act-x", Decision: api.DecisionApprove, Approver: "alice", RequestID: "r-1"}))
	var approver string
	require.NoError(t, rc.Temporal().GetWorkflow(ctx, req.RunID, "").Get(ctx, &approver))
	require.Equal(t, "alice", approver)

	closed, err := rc.Start(ctx, req)
	require.NoError(t, err)
	require.Equal(t, Started{RunID: req.RunID, ClosedStatus: "completed"}, closed)
	require.Equal(t, firstExecution, rc.Temporal().GetWorkflow(ctx, req.RunID, "").GetRunID(), "the closed run was not started again")
	ended, err := rc.Ended(ctx, req.RunID)
	require.NoError(t, err)
	require.True(t, ended)
}

func TestEveryCallOnAnUnknownRunIsRunNotFound(t *testing.T) {
	rc, _ := startStub(t)
	ctx := testContext(t)
	const runID = "no-such-run"
	calls := map[string]func() error{
		"Snapshot": func() error { _, err := rc.Snapshot(ctx, runID); return err },
		"Events":   func() error { _, err := rc.Events(ctx, runID, 0); return err },
		"Describe": func() error { _, err := rc.Describe(ctx, runID); return err },
		"Ended":    func() error { _, err := rc.Ended(ctx, runID); return err },
		"Decide":   func() error { return rc.Decide(ctx, runID, api.ApprovalSignal{ActionID: "act-x"}) },
		"Resolve":  func() error { return rc.Resolve(ctx, runID, api.ResolveSignal{StepID: "step-1"}) },
		"Refuse":   func() error { return rc.Refuse(ctx, runID, api.RefusalSignal{ActionID: "act-x"}) },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()

			require.ErrorIs(t, err, ErrRunNotFound)
			require.NotErrorIs(t, err, ErrUnavailable)
			var notFound *NotFoundError
			require.True(t, errors.As(err, &notFound))
			require.Equal(t, `run "no-such-run" not found`, err.Error(), "one line a person can read")
		})
	}
}

func TestSnapshotAndEventsReadTheRunsQueries(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	_, err := rc.Start(ctx, StartRequest{RunID: "queries", TaskQueue: queue, Input: api.RunInput{}})
	require.NoError(t, err)

	var snap api.RunSnapshot
	require.Eventually(t, func() bool {
		snap, err = rc.Snapshot(ctx, "queries")
		return err == nil
	}, time.Minute, 20*time.Millisecond)
	require.Equal(t, "queries", snap.Run.ID)
	require.Equal(t, api.RunRunning, snap.Run.Status)
	all, err := rc.Events(ctx, "queries", 0)
	require.NoError(t, err)
	require.Equal(t, []int64{1, 2, 3}, sequences(all))
	after, err := rc.Events(ctx, "queries", 2)
	require.NoError(t, err)
	require.Equal(t, []int64{3}, sequences(after), "only the events after since")
	desc, err := rc.Describe(ctx, "queries")
	require.NoError(t, err)
	require.True(t, desc.Open())
	require.Equal(t, "running", desc.StatusName())
}

func TestListWaitingIsTheInboxSoonestToExpireFirst(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	start := func(runID string, in stubInput) {
		// Start sends a RunInput; these runs need the stub's own input.
		_, err := rc.Temporal().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: runID, TaskQueue: queue}, api.WorkflowName, in)
		require.NoError(t, err)
	}
	start("later", stubInput{ActionID: "act-000000000000000b", ExpiresIn: 2 * time.Hour})
	start("sooner", stubInput{ActionID: "act-000000000000000a", ExpiresIn: time.Hour, Approvers: []string{"bob"}})
	start("busy", stubInput{})

	var inbox []PendingApproval
	// Visibility is eventually consistent: wait until both waiting runs are indexed.
	require.Eventually(t, func() bool {
		var err error
		inbox, err = rc.ListWaiting(ctx)
		return err == nil && len(inbox) == 2
	}, time.Minute, 50*time.Millisecond)

	require.Equal(t, []string{"sooner", "later"}, []string{inbox[0].RunID, inbox[1].RunID})
	require.Equal(t, "act-000000000000000a", inbox[0].ActionID)
	require.Equal(t, []string{"bob"}, inbox[0].Approvers, "the run's approvers when the action names none")
	require.Equal(t, "create_issue_comment", inbox[0].Tool)
	require.Equal(t, "acme/widgets#1", inbox[0].Target)
	require.Equal(t, "waiting for approval", inbox[0].Label)
	ids, err := rc.WaitingRunIDs(ctx)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"sooner", "later"}, ids, "a running run is not waiting")

	runID, err := rc.RunByActionID(ctx, "act-000000000000000b")
	require.NoError(t, err)
	require.Equal(t, "later", runID)
	_, err = rc.RunByActionID(ctx, "act-1111111111111111")
	require.ErrorIs(t, err, ErrRunNotFound)
	_, err = rc.RunByActionID(ctx, "act-1' OR '1'='1")
	require.ErrorIs(t, err, ErrBadActionID, "an ID outside the rule never reaches the query")
}

func sequences(events []api.Event) []int64 {
	seqs := make([]int64, len(events))
	for i, e := range events {
		seqs[i] = e.Sequence
	}
	return seqs
}
