package prodtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/e2e"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// waitToApprove waits until the run asks for approval and returns what it
// waits on; faults queued after this only meet the run's post.
func waitToApprove(t *testing.T, s *stack, runID string) api.RunSnapshot {
	t.Helper()
	snap := e2e.WaitForStatus(t, s.client(), runID, api.RunWaitingForUser, runTimeout)
	require.NotNil(t, snap.PendingAction, e2e.Describe(snap))
	return snap
}

func approve(t *testing.T, s *stack, runID string, snap api.RunSnapshot) {
	t.Helper()
	require.NoError(t, e2e.Approve(context.Background(), s.client(), runID, snap.PendingAction.ID, "alice", "prod-"+runID))
}

// createsSoFar counts the sandbox's create_comment requests.
func createsSoFar(t *testing.T, s *stack) int {
	return len(e2e.RequestsFor(s.sandbox.Requests(t), ghsandbox.OpCreateComment))
}

// lostResponseThenWorkerRestart is seed 004's story: GitHub creates the
// comment, the answer is lost, the worker restarts while the run finds out
// what happened, and the pull request has exactly one comment.
func lostResponseThenWorkerRestart(t *testing.T, s *stack) {
	const queue, runID = "prod-lost-response", "prod-lost-response"
	first := s.startWorker(t, queue)
	e2e.MustStartRun(t, s.client(), queue, runID, e2e.ReviewInput(toolTimeout))
	snap := waitToApprove(t, s, runID)
	requireEncryptedOnTheServer(t, s, runID)
	require.Zero(t, createsSoFar(t, s), "nothing was posted before this run")
	// The post is made and its answer dropped; the lookup that follows it
	// (the one after the post's own check) is held, so that the worker
	// restarts with the outcome still unknown.
	s.sandbox.AddFaults(t,
		ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse},
		ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeDelay, DelayMs: heldAnswerMs, After: 1},
	)
	approve(t, s, runID, snap)
	e2e.Eventually(t, runTimeout, "the comment to be created, its answer lost, and the lookup after it held", func() (struct{}, bool, string) {
		log := s.sandbox.Requests(t)
		creates, lists := e2e.RequestsFor(log, ghsandbox.OpCreateComment), e2e.RequestsFor(log, ghsandbox.OpListComments)
		held := len(lists) > 0 && lists[len(lists)-1].Fault == ghsandbox.ModeDelay
		done := len(creates) == 1 && creates[0].Fault == ghsandbox.ModeDropResponse && held
		return struct{}{}, done, fmt.Sprintf("%d create_comment, %d list_comments requests", len(creates), len(lists))
	})

	first.Kill()
	s.startWorker(t, queue)

	snap = e2e.RequireOnePostedComment(t, s.client(), s.sandbox, runID, runTimeout)
	require.Equal(t, 1, createsSoFar(t, s), "the comment was never created again")
	require.Empty(t, s.sandbox.Faults(t), "both faults were met")
	events := e2e.MustEvents(t, s.client(), runID)
	require.True(t, e2e.HasEvent(events, api.EventRunStatus, string(api.RunReconciling)), "the run reconciled")
	require.True(t, e2e.HasEvent(events, api.EventStepStatus, string(api.StepOutcomeUnknown)), "the step was outcome_unknown")
	require.Contains(t, string(e2e.CommentStep(snap).SafeOutput), `"alreadyExisted":true`)
}

// twoWorkersOneKilled: two workers poll the run's queue; the one whose post
// is in flight is SIGKILLed, and the other finishes the run.
func twoWorkersOneKilled(t *testing.T, s *stack) {
	const queue, runID = "prod-two-workers", "prod-two-workers"
	workers := []*e2e.Process{s.startWorker(t, queue), s.startWorker(t, queue)}
	e2e.MustStartRun(t, s.client(), queue, runID, e2e.ReviewInput(toolTimeout))
	snap := waitToApprove(t, s, runID)
	createsBefore := createsSoFar(t, s)
	// GitHub creates the comment and holds the answer past the kill.
	s.sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDelay, DelayMs: heldAnswerMs})
	approve(t, s, runID, snap)
	e2e.Eventually(t, runTimeout, "the comment to be created with its answer held", func() (struct{}, bool, string) {
		n := createsSoFar(t, s) - createsBefore
		return struct{}{}, n == 1, fmt.Sprintf("%d new create_comment requests", n)
	})
	posting := runningActivity(t, s.client(), runID, workers...)

	posting.Kill()

	snapDone := e2e.RequireOnePostedComment(t, s.client(), s.sandbox, runID, runTimeout)
	require.Equal(t, 1, createsSoFar(t, s)-createsBefore, "the comment was never created again")
	for _, w := range workers {
		if w != posting {
			exited, err := w.Exited()
			require.False(t, exited, "the surviving worker %s is still running (%v)", w.Name(), err)
		}
	}
	events := e2e.MustEvents(t, s.client(), runID)
	require.True(t, e2e.HasEvent(events, api.EventRunStatus, string(api.RunReconciling)), "the run reconciled")
	require.Contains(t, string(e2e.CommentStep(snapDone).SafeOutput), `"alreadyExisted":true`)
}

// serverRestartWhileWaiting restarts the Temporal server process while a run
// waits for approval: the run is found as it was, takes the approval, and
// posts once.
func serverRestartWhileWaiting(t *testing.T, s *stack) {
	const queue, runID = "prod-server-restart", "prod-server-restart"
	worker := s.startWorker(t, queue)
	e2e.MustStartRun(t, s.client(), queue, runID, e2e.ReviewInput(toolTimeout))
	before := waitToApprove(t, s, runID)
	eventsBefore := e2e.MustEvents(t, s.client(), runID)

	clean := s.cluster.RestartServer(t)
	t.Logf("the server stopped on SIGTERM by itself: %t", clean)

	after := waitToApprove(t, s, runID)
	require.Equal(t, before.Steps, after.Steps, "every step as it was")
	require.Equal(t, before.PendingAction, after.PendingAction, "the same action, still waiting")
	requirePrefix(t, eventsBefore, e2e.MustEvents(t, s.client(), runID))
	// Approved with the starter CLI, over the same variables as the worker;
	// a try while the frontend is still settling is made again.
	e2e.Eventually(t, runTimeout, "starter approve to be accepted", func() (struct{}, bool, string) {
		res, err := e2e.RunCommand(context.Background(), s.bins.Starter, s.cluster.ClientEnv(),
			"approve", runID, "--action", after.PendingAction.ID, "--as", "alice")
		if err != nil {
			return struct{}{}, false, err.Error()
		}
		return struct{}{}, res.ExitCode == 0, res.Stdout + res.Stderr
	})

	done := e2e.RequireOnePostedComment(t, s.client(), s.sandbox, runID, runTimeout)
	requirePrefix(t, eventsBefore, e2e.MustEvents(t, s.client(), runID))
	for i, step := range before.Steps {
		if step.Status == api.StepSucceeded {
			require.Equal(t, step, done.Steps[i], "step %s finished before the restart is unchanged", step.ID)
		}
	}
	require.Equal(t, api.ActionApproved, done.PendingAction.State)
	require.Equal(t, "alice", done.PendingAction.DecidedBy)
	exited, err := worker.Exited()
	require.False(t, exited, "the worker rode out the restart (%v)", err)
}
