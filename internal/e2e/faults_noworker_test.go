package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/runclient"
)

// starterWithNoWorker runs a starter command against the stack while no
// worker is up, and requires that it succeeds saying the command is
// recorded, with the run's last known state.
func starterWithNoWorker(t *testing.T, s *Stack, runID string, lastKnown api.RunStatus, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	began := time.Now()
	res, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(), args...)
	require.NoError(t, err)
	t.Logf("starter %s took %s with no worker", args[0], time.Since(began).Round(time.Millisecond))
	require.Zero(t, res.ExitCode, "starter %s: stdout %q stderr %q", strings.Join(args, " "), res.Stdout, res.Stderr)
	require.Contains(t, res.Stdout, runclient.RecordedNote)
	require.Contains(t, res.Stdout, "run "+runID+" was last known "+string(lastKnown))
}

// TestFaultWithTheWorkerKilledStarterCommandsAreRecordedAndTheNextWorkerAppliesThem
// is the "done when": with the worker SIGKILLed, `starter approve`
// and `starter cancel` succeed and say the command is recorded; a worker
// started afterwards applies them; a cancel of a post in flight still ends
// with the step succeeded and its comment ID.
func TestFaultWithTheWorkerKilledStarterCommandsAreRecordedAndTheNextWorkerAppliesThem(t *testing.T) {
	s := newStack(t)

	t.Run("approve while the run waits", func(t *testing.T) {
		const queue, runID = "no-worker-approve", "fault-no-worker-approve"
		first := s.StartWorkerOn(t, queue, nil)
		MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
		waiting := WaitForStatus(t, s.Client(), runID, api.RunWaitingForUser, runTimeout)
		require.NotNil(t, waiting.PendingAction)
		first.Kill()

		starterWithNoWorker(t, s, runID, api.RunWaitingForUser,
			"approve", runID, "--action", waiting.PendingAction.ID, "--as", "alice")

		s.StartWorkerOn(t, queue, nil)
		snap := requireOnePostedComment(t, s, runID)
		require.Equal(t, api.ActionApproved, snap.Actions[0].State)
		require.Equal(t, "alice", snap.Actions[0].DecidedBy)
	})

	t.Run("cancel while the post is in flight", func(t *testing.T) {
		const queue, runID = "no-worker-cancel", "fault-no-worker-cancel"
		first := s.StartWorkerOn(t, queue, nil)
		MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
		before := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment))
		s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeLandLate, DelayMs: landLateMs})
		WaitAndApprove(t, s.Client(), runID, runTimeout)
		Eventually(t, runTimeout, "the create to reach the sandbox and be held", func() (struct{}, bool, string) {
			creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
			return struct{}{}, len(creates) == 1, "create_comment requests: " + strconv.Itoa(len(creates))
		})
		first.Kill()

		starterWithNoWorker(t, s, runID, api.RunRunning,
			"cancel", runID, "--as", "carol", "--reason", "wrong pull request")

		s.StartWorkerOn(t, queue, nil)
		res := WaitForResult(t, s.Client(), runID, runTimeout)
		require.Equal(t, api.RunCancelled, res.Status, "the next worker applied the recorded cancel")
		snap := WaitForStatus(t, s.Client(), runID, api.RunCancelled, runTimeout)
		require.NotNil(t, snap.Cancel)
		require.Equal(t, "carol", snap.Cancel.By)
		posted := s.Sandbox.PostedComments(t)[runID]
		require.Len(t, posted, 1, "the post in flight landed once")
		step := CommentStep(snap)
		require.NotNil(t, step, Describe(snap))
		require.Equal(t, api.StepSucceeded, step.Status, Describe(snap))
		require.Equal(t, strconv.FormatInt(posted[0].GetID(), 10), step.ExternalResourceID)
	})

	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, 2, posted.Total())
	require.Zero(t, posted.Duplicates())
}
