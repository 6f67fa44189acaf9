package runclient_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// startStub starts a dev server and a worker running the stub AgentRun, and
// returns a run client and the worker's task queue.
func startStub(t *testing.T) (*runclient.Client, string) {
	t.Helper()
	return testkit.StartStub(t, "runclient")
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestStartingTheSameIDAgainReusesTheOpenRunAndNeverRestartsAClosedOne(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	req := runclient.StartRequest{RunID: runclient.RunID("acme/widgets", 1, "ticket-42"), TaskQueue: queue, Input: api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ConversationID: "conv-1",
	}}

	first, err := rc.Start(ctx, req)
	require.NoError(t, err)
	again, err := rc.Start(ctx, req)
	require.NoError(t, err)
	require.Equal(t, runclient.Started{RunID: req.RunID, Agent: api.DefaultAgent}, first)
	require.Equal(t, runclient.Started{RunID: req.RunID, Agent: api.DefaultAgent}, again, "an open run is reused, not reported as closed")
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
	require.Equal(t, runclient.Started{RunID: req.RunID, Agent: api.DefaultAgent, ClosedStatus: "completed"}, closed)
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

			require.ErrorIs(t, err, runclient.ErrRunNotFound)
			require.NotErrorIs(t, err, runclient.ErrUnavailable)
			var notFound *runclient.NotFoundError
			require.True(t, errors.As(err, &notFound))
			require.Equal(t, `run "no-such-run" not found`, err.Error(), "one line a person can read")
		})
	}
}

func TestSnapshotAndEventsReadTheRunsQueries(t *testing.T) {
	rc, queue := startStub(t)
	ctx := testContext(t)
	_, err := rc.Start(ctx, runclient.StartRequest{RunID: "queries", TaskQueue: queue, Input: api.RunInput{Repo: "acme/widgets", PullNumber: 1}})
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
	testkit.StartStubRun(t, rc, queue, "later", "", testkit.Input{ActionID: "act-000000000000000b", ExpiresIn: 2 * time.Hour})
	testkit.StartStubRun(t, rc, queue, "sooner", "", testkit.Input{ActionID: "act-000000000000000a", ExpiresIn: time.Hour, Approvers: []string{"bob"}})
	testkit.StartStubRun(t, rc, queue, "busy", "", testkit.Input{})

	var inbox []runclient.PendingApproval
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
	require.ErrorIs(t, err, runclient.ErrRunNotFound)
	_, err = rc.RunByActionID(ctx, "act-1' OR '1'='1")
	require.ErrorIs(t, err, runclient.ErrBadActionID, "an ID outside the rule never reaches the query")
}

func sequences(events []api.Event) []int64 {
	seqs := make([]int64, len(events))
	for i, e := range events {
		seqs[i] = e.Sequence
	}
	return seqs
}
