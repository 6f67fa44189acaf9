package runclient_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// With the worker gone, a person's command still reaches the run: the run
// query gets no answer within the precheck timeout, Reach answers the run's
// last known state from what Temporal keeps without a worker (its status
// search attribute and inbox memo), the signal is recorded, and the next
// worker applies it. A run that does not exist and a Temporal that does
// not answer still fail, each as itself.
func TestAPersonsCommandReachesARunWithNoWorkerAndTheNextWorkerAppliesIt(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{SharedServer: true})
	queue := testkit.Unique(t, "reach")
	run, action := stack.WaitingRunWithNoWorker(t, queue)

	rc := runclient.New(stack.Client(), runclient.Options{CallTimeout: 30 * time.Second, PrecheckTimeout: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	reach, err := rc.Reach(ctx, run.GetID())
	require.NoError(t, err, "no worker is not an error")
	require.False(t, reach.Live)
	require.True(t, reach.Open)
	require.Error(t, reach.NoAnswer)
	last := reach.Snapshot
	require.Equal(t, api.RunWaitingForUser, last.Run.Status)
	require.Equal(t, "carol", last.Run.UserID, "the memo keeps who asked for the run")
	require.Len(t, last.Actions, 1)
	require.Equal(t, action.ID, last.Actions[0].ID)
	require.Equal(t, action.ArgsHash, last.Actions[0].ArgsHash)
	require.Equal(t, "run "+run.GetID()+" was last known waiting_for_user: "+last.Label, runclient.LastKnownLine(last))

	require.NoError(t, rc.Decide(ctx, run.GetID(), api.ApprovalSignal{
		ActionID: action.ID, ArgsHash: action.ArgsHash, Decision: api.DecisionApprove,
		Approver: "alice", RequestID: "reach-approve-1", Channel: "test",
	}), "the signal is recorded without a worker")

	_, err = rc.Reach(ctx, "no-such-run")
	require.ErrorIs(t, err, runclient.ErrRunNotFound)
	down := runclient.New(unreachableTemporal(t), runclient.Options{CallTimeout: 2 * time.Second, PrecheckTimeout: time.Second})
	_, err = down.Reach(ctx, run.GetID())
	require.ErrorIs(t, err, runclient.ErrUnavailable)
	require.NotErrorIs(t, err, runclient.ErrRunNotFound)

	w := agentworker.NewWithActivities(stack.Client(), queue, stack.Activities(nil))
	require.NoError(t, w.Start())
	res := stack.WaitForResult(t, run)
	require.Equal(t, api.RunCompleted, res.Status, "the next worker applied the recorded approval")
	applied, err := rc.Reach(ctx, run.GetID())
	require.NoError(t, err)
	require.True(t, applied.Live, "a worker answers again")
	require.True(t, applied.KnowsWho)
	require.Equal(t, api.ActionApproved, applied.Snapshot.Actions[0].State)
	require.Equal(t, "alice", applied.Snapshot.Actions[0].DecidedBy)
	posted := applied.Snapshot.Outcome.Posted
	require.Len(t, posted, 1)
	require.Positive(t, posted[0].CommentID)

	// Once the run has ended, its memo names the comment it posted: with
	// no worker again, the last known state still says so.
	w.Stop()
	ended, err := rc.Reach(ctx, run.GetID())
	require.NoError(t, err)
	require.False(t, ended.Live)
	require.False(t, ended.Open)
	require.True(t, ended.KnowsWho, "the inbox memo of its wait is kept")
	require.Equal(t, api.RunCompleted, ended.Snapshot.Run.Status)
	require.Equal(t, api.PostedComments(posted), ended.Snapshot.Outcome.Posted)
}

// unreachableTemporal is a client of an address nothing listens on.
func unreachableTemporal(t *testing.T) client.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	c, err := client.NewLazyClient(client.Options{HostPort: addr})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c
}
