package agentworker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// startVersionedWorker starts a worker of version d on queue, stopped when
// the test ends, and returns it with its options.
func startVersionedWorker(t *testing.T, stack *testkit.Stack, queue string, d agentworker.Deployment) (worker.Worker, agentworker.WorkerOptions) {
	t.Helper()
	opts := agentworker.WorkerOptions{TaskQueue: queue, StopTimeout: agentworker.DefaultStopTimeout, Deployment: d}
	w := agentworker.NewWorkerWithOptions(stack.Client(), opts, stack.Activities(nil))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	return w, opts
}

// waitForVersion waits until the server has seen the worker of opts poll
// both sides of its queue.
func waitForVersion(t *testing.T, c client.Client, opts agentworker.WorkerOptions) {
	t.Helper()
	require.Eventually(t, func() bool {
		polled, err := agentworker.VersionPolled(context.Background(), c, opts)
		require.NoError(t, err)
		return polled
	}, testkit.RunTimeout, 50*time.Millisecond, "version %+v never registered on both sides of %s", opts.Deployment, opts.TaskQueue)
}

// workflowTaskBuilds are the build IDs that completed each of the run's
// workflow tasks, in order, and the deployment every one names.
func workflowTaskBuilds(t *testing.T, c client.Client, runID string) (builds []string, deployments map[string]bool) {
	t.Helper()
	deployments = map[string]bool{}
	iter := c.GetWorkflowHistory(context.Background(), runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		event, err := iter.Next()
		require.NoError(t, err)
		if attrs := event.GetWorkflowTaskCompletedEventAttributes(); attrs != nil {
			builds = append(builds, attrs.GetDeploymentVersion().GetBuildId())
			deployments[attrs.GetDeploymentVersion().GetDeploymentName()] = true
		}
	}
	return builds, deployments
}

func requirePinnedTo(t *testing.T, c client.Client, runID string, d agentworker.Deployment) {
	t.Helper()
	desc, err := c.DescribeWorkflowExecution(context.Background(), runID, "")
	require.NoError(t, err)
	info := desc.GetWorkflowExecutionInfo().GetVersioningInfo()
	require.Equal(t, enumspb.VERSIONING_BEHAVIOR_PINNED, info.GetBehavior(), "run %s", runID)
	require.Equal(t, d.BuildID, info.GetDeploymentVersion().GetBuildId(), "run %s", runID)
	require.Equal(t, d.Name, info.GetDeploymentVersion().GetDeploymentName(), "run %s", runID)

	builds, deployments := workflowTaskBuilds(t, c, runID)
	require.NotEmpty(t, builds)
	for i, b := range builds {
		require.Equal(t, d.BuildID, b, "run %s: workflow task %d of %v", runID, i, builds)
	}
	require.Equal(t, map[string]bool{d.Name: true}, deployments, "run %s", runID)
}

// openRunsOn counts the open runs pinned to d, with the query
// docs/operations.md gives operators for "may build a stop now?".
func openRunsOn(t *testing.T, c client.Client, d agentworker.Deployment) int64 {
	t.Helper()
	resp, err := c.CountWorkflow(context.Background(), &workflowservice.CountWorkflowExecutionsRequest{
		Query: fmt.Sprintf(`TemporalWorkerDeploymentVersion=%q AND ExecutionStatus="Running"`, d.Name+":"+d.BuildID),
	})
	require.NoError(t, err)
	return resp.GetCount()
}

// waitForOpenRunsOn waits until openRunsOn is want: visibility lags the runs.
func waitForOpenRunsOn(t *testing.T, c client.Client, d agentworker.Deployment, want int64) {
	t.Helper()
	require.Eventually(t, func() bool { return openRunsOn(t, c, d) == want }, testkit.RunTimeout, 50*time.Millisecond,
		"open runs on build %s: want %d, have %d", d.BuildID, want, openRunsOn(t, c, d))
}

// commentsOf counts the sandbox's comments on acme/widgets#1 that carry an
// operation marker of this run.
func commentsOf(stack *testkit.Stack, runID string) int {
	n := 0
	for _, c := range stack.Sandbox().Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, "<!-- agent-operation:"+runID+":") {
			n++
		}
	}
	return n
}

func TestRunWaitingForApprovalFinishesOnTheBuildThatStartedItAfterANewBuildBecomesCurrent(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "versioned-rollout")
	deployment := testkit.Unique(t, "agentrun-rollout")
	stack := stackAside(t, queue)
	buildA := agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "a"}
	buildB := agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "b"}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()

	workerA, optsA := startVersionedWorker(t, stack, queue, buildA)
	routing, err := agentworker.PromoteFirstVersion(ctx, stack.Client(), optsA)
	require.NoError(t, err)
	require.True(t, routing.Promoted, "the deployment's first version makes itself current")
	first := stack.StartReview(t, queue)
	firstAction := stack.WaitForApproval(t, first.GetID())

	_, optsB := startVersionedWorker(t, stack, queue, buildB)
	routing, err = agentworker.PromoteFirstVersion(ctx, stack.Client(), optsB)
	require.NoError(t, err)
	require.False(t, routing.Promoted, "a later build waits for the operator")
	require.True(t, routing.Serves(buildA), "new runs still go to build a: %+v", routing)
	waitForVersion(t, stack.Client(), optsB)
	_, err = stack.Client().WorkerDeploymentClient().GetHandle(buildB.Name).SetCurrentVersion(ctx,
		client.WorkerDeploymentSetCurrentVersionOptions{BuildID: buildB.BuildID})
	require.NoError(t, err)
	second := stack.StartReview(t, queue)
	secondAction := stack.WaitForApproval(t, second.GetID())
	waitForOpenRunsOn(t, stack.Client(), buildA, 1)
	waitForOpenRunsOn(t, stack.Client(), buildB, 1)

	stack.Approve(t, first.GetID(), firstAction.ID)
	stack.Approve(t, second.GetID(), secondAction.ID)

	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, first).Status)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, second).Status)
	waitForOpenRunsOn(t, stack.Client(), buildA, 0)
	requirePinnedTo(t, stack.Client(), first.GetID(), buildA)
	requirePinnedTo(t, stack.Client(), second.GetID(), buildB)
	require.Equal(t, 1, commentsOf(stack, first.GetID()), "the first run posts exactly one comment")
	require.Equal(t, 1, commentsOf(stack, second.GetID()), "the second run posts exactly one comment")
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), 2)
	require.Equal(t, worker.WorkerDeploymentVersion{DeploymentName: buildB.Name, BuildID: buildB.BuildID}, *describeCurrent(t, stack.Client(), buildB.Name))

	// A closed run still answers its queries on its own build only, which is
	// why docs/operations.md keeps a drained build's worker while its runs
	// are still read.
	_, err = stack.Snapshot(ctx, first.GetID())
	require.NoError(t, err, "the closed first run answers while build a polls")
	workerA.Stop()
	unreadable, cancelRead := context.WithTimeout(ctx, 3*time.Second)
	defer cancelRead()
	_, err = stack.Snapshot(unreadable, first.GetID())
	require.ErrorIs(t, err, runclient.ErrUnavailable, "no worker of build a is left to answer")
	snap, err := stack.Snapshot(ctx, second.GetID())
	require.NoError(t, err)
	require.Equal(t, api.RunCompleted, snap.Run.Status)
}

func describeCurrent(t *testing.T, c client.Client, name string) *worker.WorkerDeploymentVersion {
	t.Helper()
	desc, err := c.WorkerDeploymentClient().GetHandle(name).Describe(context.Background(), client.WorkerDeploymentDescribeOptions{})
	require.NoError(t, err)
	require.NotNil(t, desc.Info.RoutingConfig.CurrentVersion, "the deployment has no current version")
	return desc.Info.RoutingConfig.CurrentVersion
}

func TestFirstVersionLeavesADeploymentAnOperatorRoutedBackToUnversionedWorkersAlone(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "versioned-rollback")
	deployment := testkit.Unique(t, "agentrun-rollback")
	stack := stackAside(t, queue)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	_, optsA := startVersionedWorker(t, stack, queue, agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "a"})
	routing, err := agentworker.PromoteFirstVersion(ctx, stack.Client(), optsA)
	require.NoError(t, err)
	require.True(t, routing.Promoted)
	_, err = stack.Client().WorkerDeploymentClient().GetHandle(deployment).SetCurrentVersion(ctx,
		client.WorkerDeploymentSetCurrentVersionOptions{BuildID: ""})
	require.NoError(t, err, "route the deployment back to unversioned workers")

	_, optsC := startVersionedWorker(t, stack, queue, agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "c"})
	routing, err = agentworker.PromoteFirstVersion(ctx, stack.Client(), optsC)

	require.NoError(t, err)
	require.Equal(t, agentworker.Routing{}, routing, "neither promoted nor current: new runs go to unversioned workers")
	desc, err := stack.Client().WorkerDeploymentClient().GetHandle(deployment).Describe(ctx, client.WorkerDeploymentDescribeOptions{})
	require.NoError(t, err)
	require.Nil(t, desc.Info.RoutingConfig.CurrentVersion, "the operator's routing stands")
}

func TestPromoteFirstVersionRefusesAnUnversionedWorker(t *testing.T) {
	_, err := agentworker.PromoteFirstVersion(context.Background(), nil, agentworker.WorkerOptions{TaskQueue: "q"})

	require.ErrorContains(t, err, "AGENT_VERSIONING=off")
}
