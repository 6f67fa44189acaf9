package runclient_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/payloadcodec"
	"github.com/agentrun/agentrun/internal/temporalclient"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// queryingInbox hides the client's visibility listing with memos: through
// it, PendingApprovals asks every waiting run its query, as it does a run
// whose memo it cannot read.
type queryingInbox struct{ rc *runclient.Client }

func (q queryingInbox) WaitingRunIDs(ctx context.Context) ([]string, error) {
	return q.rc.WaitingRunIDs(ctx)
}

func (q queryingInbox) Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error) {
	return q.rc.Snapshot(ctx, runID)
}

// A real run keeps what the inbox shows in its (encrypted) memo: a client
// with the converter lists it from visibility alone, even with no worker to
// answer a query, exactly as the run query would have shown it; a client
// that cannot decrypt the memo asks the run instead, and lists the same.
func TestTheInboxListsAWaitingRunFromItsMemoAsItsQueryWouldWithNoWorkerToAsk(t *testing.T) {
	testkit.NeedsDevServer(t)
	codec, err := payloadcodec.Parse(payloadcodec.NewKeyEntry("2026-12"))
	require.NoError(t, err)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "inbox-memo-idle", PayloadCodec: codec})
	const queue = "inbox-memo"
	w := agentworker.NewWithActivities(stack.Client(), queue, stack.Activities(nil))
	require.NoError(t, w.Start())
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			w.Stop()
		}
	})
	run := stack.StartReview(t, queue)
	action := stack.WaitForApproval(t, run.GetID())
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()

	// Without the converter, the memo cannot be read: the run is asked.
	plain := runclient.New(stack.Client(), runclient.Options{CallTimeout: 30 * time.Second})
	var asked []runclient.PendingApproval
	require.Eventually(t, func() bool {
		asked, err = plain.ListWaiting(ctx)
		return err == nil && len(asked) == 1
	}, time.Minute, 50*time.Millisecond)
	require.Equal(t, action.ID, asked[0].ActionID)
	require.Equal(t, action.ArgsHash, asked[0].ArgsHash)
	queried, err := runclient.PendingApprovals(ctx, queryingInbox{plain})
	require.NoError(t, err)
	require.Equal(t, queried, asked)

	w.Stop()
	stopped = true
	// No worker answers a query now: only visibility can list the run.
	withMemo := runclient.New(stack.Client(), runclient.Options{
		CallTimeout: 2 * time.Second, DataConverter: temporalclient.Config{Codec: codec}.DataConverter(),
	})
	listed, err := withMemo.ListWaiting(ctx)
	require.NoError(t, err)
	require.Equal(t, queried, listed)
	_, err = withMemo.Snapshot(ctx, run.GetID())
	require.ErrorIs(t, err, runclient.ErrUnavailable, "the listing above did not come from the run")
}
