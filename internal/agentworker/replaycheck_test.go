package agentworker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
)

// otherShape is a workflow of another shape than AgentRun: its first command
// is a timer, where AgentRun's is not. Registered under AgentRun's name, it
// stands for a build whose commands changed without a GetVersion gate.
func otherShape(ctx workflow.Context, _ api.RunInput) error {
	return workflow.Sleep(ctx, time.Hour)
}

func registerOtherShape(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(otherShape, workflow.RegisterOptions{Name: api.WorkflowName})
}

// servedAside is a queue of its own, named after prefix, on the shared dev
// server, with a worker serving it over acts until the test ends.
func servedAside(t *testing.T, prefix string) (string, *testkit.Stack, *activities.Activities) {
	t.Helper()
	queue := testkit.Unique(t, prefix)
	stack := stackAside(t, queue)
	acts := stack.Activities(nil)
	w := agentworker.NewWorkerWithOptions(stack.Client(), agentworker.WorkerOptions{TaskQueue: queue, StopTimeout: agentworker.DefaultStopTimeout}, acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return queue, stack, acts
}

func replayCheck(stack *testkit.Stack, register func(worker.WorkflowRegistry)) agentworker.ReplayCheck {
	return agentworker.ReplayCheck{Client: stack.Client(), Register: register}
}

// replayUntilSampled runs the check until visibility lists want runs: a run
// just started is listed a moment later.
func replayUntilSampled(t *testing.T, check agentworker.ReplayCheck, scope agentworker.ReplayScope, want int) agentworker.ReplayReport {
	t.Helper()
	var report agentworker.ReplayReport
	require.Eventually(t, func() bool {
		var err error
		report, err = check.Run(context.Background(), scope)
		require.NoError(t, err)
		return report.Replayed+len(report.Failed) == want
	}, testkit.RunTimeout, 50*time.Millisecond, "the check never sampled %d runs: %+v", want, report)
	return report
}

func TestReplayCheckPassesAWaitingRunOfThisCodeAndNamesItWhenTheCodeHasAnotherShape(t *testing.T) {
	t.Parallel()
	queue, stack, acts := servedAside(t, "replay-check")
	run := stack.StartReview(t, queue)
	stack.WaitForApproval(t, run.GetID())
	scope := agentworker.ReplayScope{TaskQueue: queue}

	same := replayUntilSampled(t, replayCheck(stack, agentworker.ReplayRegistration(acts)), scope, 1)
	other := replayUntilSampled(t, replayCheck(stack, registerOtherShape), scope, 1)

	require.Equal(t, agentworker.ReplayReport{Replayed: 1}, same, "the run replays on the code that runs it")
	require.NoError(t, same.Err())
	require.Equal(t, 0, other.Replayed)
	require.Len(t, other.Failed, 1)
	require.Equal(t, run.GetID(), other.Failed[0].WorkflowID)
	require.Equal(t, run.GetRunID(), other.Failed[0].RunID)
	var failed *agentworker.ReplayFailedError
	require.ErrorAs(t, other.Err(), &failed)
	require.ErrorContains(t, other.Err(), "1 of 1 sampled open runs do not replay on this build: "+run.GetID())
	require.ErrorContains(t, other.Err(), "[TMPRL1100]", "the SDK's non-determinism error")

	stack.Approve(t, run.GetID(), stack.WaitForApproval(t, run.GetID()).ID)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, run).Status, "the check changed nothing in the run")
	require.Equal(t, 1, commentsOf(stack, run.GetID()))
}

func TestReplayCheckSamplesAtMostTheAskedNumberOfRuns(t *testing.T) {
	t.Parallel()
	queue, stack, acts := servedAside(t, "replay-check-sample")
	for range 3 {
		stack.WaitForApproval(t, stack.StartReview(t, queue).GetID())
	}
	check := replayCheck(stack, agentworker.ReplayRegistration(acts))
	replayUntilSampled(t, check, agentworker.ReplayScope{TaskQueue: queue}, 3)

	report, err := check.Run(context.Background(), agentworker.ReplayScope{TaskQueue: queue, Sample: 2})

	require.NoError(t, err)
	require.Equal(t, agentworker.ReplayReport{Replayed: 2}, report)
}

func TestPromoteOnStartRefusesABuildThatCannotReplayTheUnversionedRunsItWouldTakeOver(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "promote-refused")
	unversionedRun := testkit.Unique(t, "unversioned-run")
	stack := stackAside(t, queue)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	// An unversioned worker of another shape leaves a run open on the queue:
	// the first versioned deploy would move it onto the new build.
	unversioned := worker.New(stack.Client(), queue, worker.Options{})
	registerOtherShape(unversioned)
	require.NoError(t, unversioned.Start())
	open, err := stack.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: unversionedRun, TaskQueue: queue}, api.WorkflowName, api.RunInput{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		desc, err := stack.Client().DescribeWorkflowExecution(ctx, open.GetID(), "")
		return err == nil && desc.GetPendingWorkflowTask() == nil && desc.GetWorkflowExecutionInfo().GetHistoryLength() > 3
	}, testkit.RunTimeout, 50*time.Millisecond, "the unversioned run never started its timer")
	unversioned.Stop()
	build := agentworker.Deployment{Pinned: true, Name: testkit.Unique(t, "agentrun-refused"), BuildID: "new"}
	_, opts := startVersionedWorker(t, stack, queue, build)
	check := replayCheck(stack, agentworker.ReplayRegistration(stack.Activities(nil)))
	replayUntilSampled(t, check, agentworker.ReplayScope{TaskQueue: queue}, 1)

	routing, err := agentworker.PromoteAfterReplay(ctx, stack.Client(), opts, check, 0)

	var failed *agentworker.ReplayFailedError
	require.ErrorAs(t, err, &failed)
	require.Len(t, failed.Report.Failed, 1)
	require.Equal(t, unversionedRun, failed.Report.Failed[0].WorkflowID)
	require.False(t, routing.Promoted)
	desc, err := stack.Client().WorkerDeploymentClient().GetHandle(build.Name).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	require.NoError(t, err)
	require.Nil(t, desc.Info.RoutingConfig.CurrentVersion, "nothing was made current")
}

// otherHoldsShape is a holds workflow of another shape: its first command
// is a timer.
func otherHoldsShape(ctx workflow.Context, _ api.HoldsState) error {
	return workflow.Sleep(ctx, time.Hour)
}

// The holds workflow moves onto a new build at its next task (it
// auto-upgrades), so the check replays it beside the runs, and names it
// when this build's holds workflow has another shape.
func TestReplayCheckReplaysTheQueuesHoldsWorkflowToo(t *testing.T) {
	t.Parallel()
	queue, stack, acts := servedAside(t, "replay-holds")
	hold := api.HoldSignal{Selector: api.HoldSelector{Agent: api.DefaultAgent}, By: "ops", Reason: "bad deploy"}
	holds, err := stack.Client().SignalWithStartWorkflow(context.Background(), api.HoldsWorkflowID(queue), api.SignalHold, hold,
		client.StartWorkflowOptions{TaskQueue: queue}, api.HoldsWorkflowName, api.HoldsState{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		v, err := stack.Client().QueryWorkflow(context.Background(), holds.GetID(), "", api.QueryHolds)
		var view api.HoldsView
		return err == nil && v.Get(&view) == nil && len(view.Active) == 1
	}, testkit.RunTimeout, 50*time.Millisecond, "the hold is placed")
	scope := agentworker.ReplayScope{TaskQueue: queue}

	same := replayUntilSampled(t, replayCheck(stack, agentworker.ReplayRegistration(acts)), scope, 1)
	other := replayUntilSampled(t, replayCheck(stack, func(r worker.WorkflowRegistry) {
		r.RegisterWorkflowWithOptions(otherHoldsShape, workflow.RegisterOptions{Name: api.HoldsWorkflowName})
	}), scope, 1)

	require.Equal(t, agentworker.ReplayReport{Replayed: 1}, same, "the holds workflow replays on the code that runs it")
	require.Len(t, other.Failed, 1)
	require.Equal(t, holds.GetID(), other.Failed[0].WorkflowID)
	require.ErrorContains(t, other.Err(), "[TMPRL1100]")
}
