// This file is a stand-in AgentRun for the dev-server tests of the
// clients of runs (runclient, the approval server): it keeps the workflow's
// wire contract (the status and action search attributes, the run and
// events queries, the approval signal) without a model or GitHub.

package testkit

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// Input is what a stub run is started with. A RunInput decodes into it as
// an Input without an action: a running run.
type Input struct {
	// ActionID, when set, makes the run wait for a person on that action.
	ActionID  string
	ExpiresIn time.Duration
	// Approvers are the run's.
	Approvers []string
	// Close ends the run once its contract is in place instead of waiting
	// for a decision: a run that has finished.
	Close bool
}

// Workflow is the stub, registered under api.WorkflowName. It returns the
// approver of the first decision ("" when it closes at once).
func Workflow(ctx workflow.Context, in Input) (string, error) {
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
			return "", fmt.Errorf("upsert the stub's search attributes: %w", err)
		}
	}
	events := []api.Event{
		{Sequence: 1, At: now, Type: "run_started"},
		{Sequence: 2, At: now, Type: "step_status", StepID: "step-1", Status: "succeeded"},
		{Sequence: 3, At: now, Type: "action_state", StepID: "step-2", Status: "waiting"},
	}
	if err := workflow.SetQueryHandler(ctx, api.QueryRun, func() (api.RunSnapshot, error) { return snap, nil }); err != nil {
		return "", fmt.Errorf("set the run query: %w", err)
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
		return "", fmt.Errorf("set the events query: %w", err)
	}
	if in.Close {
		return "", nil
	}
	var sig api.ApprovalSignal
	workflow.GetSignalChannel(ctx, api.SignalApproval).Receive(ctx, &sig)
	return sig.Approver, nil
}

var queueSeq atomic.Int64

// Start starts a dev server and a worker running the stub on a task queue
// of its own, named after prefix, and returns the server's client and that
// queue. Under -short it skips the test: a dev server takes seconds.
func Start(t *testing.T, prefix string) (client.Client, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	server := StartServer(t, ServerOptions{})
	queue := fmt.Sprintf("%s-%d", prefix, queueSeq.Add(1))
	w := worker.New(server.Client(), queue, worker.Options{})
	w.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: api.WorkflowName})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return server.Client(), queue
}
