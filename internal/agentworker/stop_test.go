package agentworker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
)

// createArrival waits until the sandbox has received the comment's POST and
// returns when it did.
func createArrival(t *testing.T, sandbox *ghsandbox.Server) time.Time {
	t.Helper()
	var at time.Time
	require.Eventually(t, func() bool {
		for _, r := range sandbox.Requests() {
			if r.Op == ghsandbox.OpCreateComment {
				at = r.At
				return true
			}
		}
		return false
	}, testkit.RunTimeout, 10*time.Millisecond, "the approved comment was never posted")
	return at
}

// The dev-server tests share the binary's server: each names its queues,
// runs and deployments with testkit.Unique, so that neither another test
// nor a rerun under -count meets them.
func TestMain(m *testing.M) { testkit.RunTests(m) }

// stackAside starts a stack on the shared server whose own worker polls
// another queue than queue, so that the runs a test starts on queue meet
// only the workers the test starts and stops; it skips the test in -short
// mode.
func stackAside(t *testing.T, queue string) *testkit.Stack {
	t.Helper()
	return testkit.StartStack(t, testkit.StackOptions{SharedServer: true, TaskQueue: queue + "-idle"})
}

func TestWorkerStoppedWhileACommentIsPostedLetsThePostFinishWithoutReconciling(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "graceful-stop")
	// The run meets only the worker this test stops, then the one it starts after.
	stack := stackAside(t, queue)
	stopping := agentworker.NewWorker(stack.Client(), queue, agentworker.DefaultStopTimeout, stack.Activities(nil))
	require.NoError(t, stopping.Start())
	t.Cleanup(stopping.Stop)
	run := stack.StartReview(t, queue)
	action := stack.WaitForApproval(t, run.GetID())
	// The answer is held long enough for the stop to begin while the call
	// is in flight; the comment itself is stored at once, as GitHub would.
	const held = 3 * time.Second
	require.NoError(t, stack.Sandbox().AddFault(ghsandbox.Fault{
		Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDelay, DelayMs: int(held / time.Millisecond),
	}))

	stack.Approve(t, run.GetID(), action.ID)
	arrived := createArrival(t, stack.Sandbox())
	stopping.Stop()

	require.GreaterOrEqual(t, time.Since(arrived), held, "Stop returned before the held answer could arrive")
	stack.StartWorker(t, queue, offline.NewReviewer())
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, run).Status)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	snap, err := stack.Snapshot(ctx, run.GetID())
	require.NoError(t, err)
	var post *api.AgentStep
	for i, st := range snap.Steps {
		if st.ToolName == api.ToolCreateIssueComment {
			post = &snap.Steps[i]
		}
	}
	require.NotNil(t, post, "no comment step in %+v", snap.Steps)
	require.Equal(t, api.StepSucceeded, post.Status)
	require.Equal(t, 1, post.Attempt, "the post completed on its first attempt")
	events, err := stack.Events(ctx, run.GetID())
	require.NoError(t, err)
	for _, e := range events {
		require.NotEqual(t, string(api.StepOutcomeUnknown), e.Status, "event %d: the post was cancelled and reconciled: %s", e.Sequence, e.Detail)
		require.NotEqual(t, string(api.RunReconciling), e.Status, "event %d: the run reconciled", e.Sequence)
	}
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), 1)
}
