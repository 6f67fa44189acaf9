package testkit

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/runclient"
)

// RunTimeout bounds a whole run of a test on a busy 2-core machine.
const RunTimeout = 2 * time.Minute

// pollEvery is how often the waits ask a run for its state.
const pollEvery = 50 * time.Millisecond

var runSeq atomic.Int64

// StartReview starts a review of the sandbox's acme/widgets#1 on taskQueue
// and returns the run, whose ID is new in every call.
func (s *Stack) StartReview(t testing.TB, taskQueue string) client.WorkflowRun {
	t.Helper()
	return s.StartReviewOf(t, taskQueue, 1)
}

// StartReviewOf is StartReview of the sandbox's acme/widgets#pull.
func (s *Stack) StartReviewOf(t testing.TB, taskQueue string, pull int) client.WorkflowRun {
	t.Helper()
	id := fmt.Sprintf("testenv-%s-%d-%d", taskQueue, time.Now().UnixNano(), runSeq.Add(1))
	in := api.RunInput{Repo: "acme/widgets", PullNumber: pull, UserID: "carol"}
	run, err := s.Client().ExecuteWorkflow(context.Background(),
		client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, api.WorkflowName, in)
	if err != nil {
		t.Fatalf("testkit: start a run on %s: %v", taskQueue, err)
	}
	return run
}

// Runs is the run client over the stack's client (with its payload codec,
// if any): tests talk to runs as the starter and the approval server do.
func (s *Stack) Runs() *runclient.Client { return runclient.New(s.Client(), runclient.Options{}) }

// Snapshot asks a run for its RunSnapshot.
func (s *Stack) Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error) {
	return s.Runs().Snapshot(ctx, runID)
}

// Events asks a run for all its events.
func (s *Stack) Events(ctx context.Context, runID string) ([]api.Event, error) {
	return s.Runs().Events(ctx, runID, 0)
}

// WaitForApproval waits until the run asks for approval and returns the
// action it waits on; it fails the test, showing the run's events, if that
// does not happen within RunTimeout.
func (s *Stack) WaitForApproval(t testing.TB, runID string) api.PendingAction {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	for {
		snap, err := s.Snapshot(ctx, runID)
		if err == nil && snap.Run.Status == api.RunWaitingForUser && snap.PendingAction != nil {
			return *snap.PendingAction
		}
		select {
		case <-ctx.Done():
			t.Fatalf("testkit: run %s never waited for approval (last query error: %v); events:\n%s", runID, err, s.describeEvents(runID))
		case <-time.After(pollEvery):
		}
	}
}

// Approve approves the action as alice, an admin of the fixture's repository.
func (s *Stack) Approve(t testing.TB, runID, actionID string) {
	t.Helper()
	err := s.Runs().Decide(context.Background(), runID, api.ApprovalSignal{
		ActionID: actionID, Decision: api.DecisionApprove, Approver: "alice",
		RequestID: fmt.Sprintf("testenv-%d", runSeq.Add(1)), Channel: "test",
	})
	if err != nil {
		t.Fatalf("testkit: approve %s of %s: %v", actionID, runID, err)
	}
}

// WaitForResult waits for the run to end and returns its result.
func (s *Stack) WaitForResult(t testing.TB, run client.WorkflowRun) api.RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), RunTimeout)
	defer cancel()
	var res api.RunResult
	if err := run.Get(ctx, &res); err != nil {
		t.Fatalf("testkit: run %s did not end: %v; events:\n%s", run.GetID(), err, s.describeEvents(run.GetID()))
	}
	return res
}

// describeEvents is a run's events for a failure message.
func (s *Stack) describeEvents(runID string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	events, err := s.Events(ctx, runID)
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for _, e := range events {
		fmt.Fprintf(&b, "  %d %s %s %s %q\n", e.Sequence, e.Type, e.StepID, e.Status, e.Detail)
	}
	return b.String()
}

// WaitingRunWithNoWorker starts a worker on taskQueue, a review on it, and
// stops the worker once the run waits for approval: a run waiting for a
// person that no worker answers for, until the test starts one (StartWorker).
func (s *Stack) WaitingRunWithNoWorker(t testing.TB, taskQueue string) (client.WorkflowRun, api.PendingAction) {
	t.Helper()
	w := agentworker.NewWithActivities(s.Client(), taskQueue, s.Activities(nil))
	if err := w.Start(); err != nil {
		t.Fatalf("testkit: start the worker on %s: %v", taskQueue, err)
	}
	run := s.StartReview(t, taskQueue)
	action := s.WaitForApproval(t, run.GetID())
	w.Stop()
	return run, action
}
