package e2e

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// queryTimeout bounds one call to a run; right after a worker is killed a
// query can wait for Temporal to give up on that worker's sticky queue.
const queryTimeout = 5 * time.Second

// runs is the run client over the test's Temporal client: the helpers below
// talk to runs exactly as the starter and the approval server do.
func runs(c client.Client) *runclient.Client {
	return runclient.New(c, runclient.Options{CallTimeout: queryTimeout})
}

// ReviewInput is a run of the pull request under review whose GitHub calls
// time out after toolTimeout, so that a call lost with a killed worker
// comes back quickly.
func ReviewInput(toolTimeout time.Duration) api.RunInput {
	return api.RunInput{
		Repo:        PullRepo,
		PullNumber:  PullNum,
		UserID:      "carol",
		ToolTimeout: toolTimeout,
	}
}

// StartRun starts an AgentRun through the run client rather than the
// starter CLI, which does not expose every RunInput field the fault suite
// needs. Every test run has a new ID, so finding it closed is an error.
func StartRun(ctx context.Context, c client.Client, queue, runID string, in api.RunInput) error {
	started, err := runs(c).Start(ctx, runclient.StartRequest{RunID: runID, TaskQueue: queue, Input: in})
	if err != nil {
		return err
	}
	if started.ClosedStatus != "" {
		return fmt.Errorf("start run %s: a run with this ID already finished (%s)", runID, started.ClosedStatus)
	}
	return nil
}

// MustStartRun is StartRun failing the test.
func MustStartRun(t testing.TB, c client.Client, queue, runID string, in api.RunInput) {
	t.Helper()
	if err := StartRun(context.Background(), c, queue, runID, in); err != nil {
		t.Fatal(err)
	}
}

// Snapshot asks a run for its RunSnapshot.
func Snapshot(ctx context.Context, c client.Client, runID string) (api.RunSnapshot, error) {
	return runs(c).Snapshot(ctx, runID)
}

// Events asks a run for all of its events.
func Events(ctx context.Context, c client.Client, runID string) ([]api.Event, error) {
	return runs(c).Events(ctx, runID, 0)
}

// MustEvents is Events failing the test.
func MustEvents(t testing.TB, c client.Client, runID string) []api.Event {
	t.Helper()
	events, err := Events(context.Background(), c, runID)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// WaitForRun polls the run query until cond holds and returns that snapshot.
func WaitForRun(t testing.TB, c client.Client, runID string, timeout time.Duration, what string, cond func(api.RunSnapshot) bool) api.RunSnapshot {
	t.Helper()
	return Eventually(t, timeout, fmt.Sprintf("run %s: %s", runID, what), func() (api.RunSnapshot, bool, string) {
		snap, err := Snapshot(context.Background(), c, runID)
		if err != nil {
			return snap, false, err.Error()
		}
		return snap, cond(snap), Describe(snap)
	})
}

// WaitForStatus waits until the run reports status.
func WaitForStatus(t testing.TB, c client.Client, runID string, status api.RunStatus, timeout time.Duration) api.RunSnapshot {
	t.Helper()
	return WaitForRun(t, c, runID, timeout, "status "+string(status), func(s api.RunSnapshot) bool {
		return s.Run.Status == status
	})
}

// Describe is a one-line account of a snapshot for failure messages.
func Describe(s api.RunSnapshot) string {
	last := "no steps"
	if n := len(s.Steps); n > 0 {
		st := s.Steps[n-1]
		last = fmt.Sprintf("last step %s %s %s %s (attempt %d) %s", st.ID, st.Type, st.ToolName, st.Status, st.Attempt, st.Error)
	}
	return fmt.Sprintf("status %s, label %q, %s", s.Run.Status, s.Label, last)
}

// Result waits for the workflow to close and returns its result: the run
// query says completed just before the workflow closes.
func Result(ctx context.Context, c client.Client, runID string) (api.RunResult, error) {
	var res api.RunResult
	if err := c.GetWorkflow(ctx, runID, "").Get(ctx, &res); err != nil {
		return res, fmt.Errorf("run %s did not close successfully: %w", runID, err)
	}
	return res, nil
}

// WaitForResult is Result with a timeout, failing the test.
func WaitForResult(t testing.TB, c client.Client, runID string, timeout time.Duration) api.RunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := Result(ctx, c, runID)
	if err != nil {
		t.Fatalf("within %s: %v", timeout, err)
	}
	return res
}

// ForEach calls fn for 0..n-1 with at most limit calls at a time and
// returns every error, joined.
func ForEach(n, limit int, fn func(i int) error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	slots := make(chan struct{}, limit)
	for i := range n {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := fn(i); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Approve sends the approval signal, as the starter and the approval server do.
func Approve(ctx context.Context, c client.Client, runID, actionID, approver, requestID string) error {
	err := runs(c).Decide(ctx, runID, api.ApprovalSignal{
		ActionID:  actionID,
		Decision:  api.DecisionApprove,
		Approver:  approver,
		RequestID: requestID,
	})
	if err != nil {
		return fmt.Errorf("approve %s of run %s: %w", actionID, runID, err)
	}
	return nil
}

// WaitAndApprove waits until the run asks for approval and approves its action as alice.
func WaitAndApprove(t testing.TB, c client.Client, runID string, timeout time.Duration) api.RunSnapshot {
	t.Helper()
	snap := WaitForStatus(t, c, runID, api.RunWaitingForUser, timeout)
	if snap.PendingAction == nil {
		t.Fatalf("run %s waits for approval without a pending action", runID)
	}
	if err := Approve(context.Background(), c, runID, snap.PendingAction.ID, "alice", "e2e-"+runID); err != nil {
		t.Fatal(err)
	}
	return snap
}

// CommentStep is the run's create_issue_comment tool step, or nil.
func CommentStep(s api.RunSnapshot) *api.AgentStep {
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Type == api.StepToolCall && st.ToolName == api.ToolCreateIssueComment {
			return st
		}
	}
	return nil
}

// HasEvent reports whether any event matches type and status.
func HasEvent(events []api.Event, typ, status string) bool {
	return CountEvents(events, typ, status) > 0
}

// CountEvents counts the events of a type and status.
func CountEvents(events []api.Event, typ, status string) int {
	n := 0
	for _, e := range events {
		if e.Type == typ && e.Status == status {
			n++
		}
	}
	return n
}

// PendingActivity finds an open activity of a type in the run's history:
// the one thing about a run Temporal can tell without a worker.
func PendingActivity(ctx context.Context, c client.Client, runID, activityType string) (attempt int32, state enumspb.PendingActivityState, found bool, err error) {
	desc, err := runs(c).Describe(ctx, runID)
	if err != nil {
		return 0, 0, false, err
	}
	for _, a := range desc.PendingActivities {
		if a.GetActivityType().GetName() == activityType {
			return a.GetAttempt(), a.GetState(), true, nil
		}
	}
	return 0, 0, false, nil
}
