package agentworker_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
)

func TestPromoteOnStartSendsNewRunsToTheNewBuildWhileTheWaitingRunFinishesOnTheOld(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "promote-on-start")
	stack := stackAside(t, queue)
	name := testkit.Unique(t, "agentrun-on-start")
	buildA := agentworker.Deployment{Pinned: true, Name: name, BuildID: "a", PromoteOnStart: true}
	buildB := agentworker.Deployment{Pinned: true, Name: name, BuildID: "b", PromoteOnStart: true}
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	check := replayCheck(stack, agentworker.ReplayRegistration(stack.Activities(nil)))

	_, optsA := startVersionedWorker(t, stack, queue, buildA)
	routing, err := agentworker.PromoteAfterReplay(ctx, stack.Client(), optsA, check, 0)
	require.NoError(t, err)
	require.True(t, routing.Promoted, "build a makes itself current")
	first := stack.StartReview(t, queue)
	firstAction := stack.WaitForApproval(t, first.GetID())
	waitForOpenRunsOn(t, stack.Client(), buildA, 1)

	_, optsB := startVersionedWorker(t, stack, queue, buildB)
	// Even a build whose commands changed is promoted: the waiting run is
	// pinned to a and never replays on b, so the check leaves it out.
	changed := replayCheck(stack, registerOtherShape)
	routing, err = agentworker.PromoteAfterReplay(ctx, stack.Client(), optsB, changed, 0)
	require.NoError(t, err)
	require.True(t, routing.Promoted, "build b makes itself current though the deployment had one")
	require.Equal(t, &worker.WorkerDeploymentVersion{DeploymentName: buildA.Name, BuildID: "a"}, routing.Previous)
	require.True(t, routing.Serves(buildB))
	again, err := agentworker.PromoteAfterReplay(ctx, stack.Client(), optsB, check, 0)
	require.NoError(t, err)
	require.Equal(t, agentworker.Routing{Current: routing.Current}, again, "a second replica of b changes nothing")
	second := stack.StartReview(t, queue)
	secondAction := stack.WaitForApproval(t, second.GetID())
	waitForOpenRunsOn(t, stack.Client(), buildB, 1)
	waitForOpenRunsOn(t, stack.Client(), buildA, 1)
	// The check an operator runs before moving a's runs onto b: the waiting
	// run of a replays on b's code.
	moving := replayUntilSampled(t, check, agentworker.ReplayScope{TaskQueue: queue, Deployment: buildA.Name, FromBuild: "a"}, 1)
	require.Equal(t, agentworker.ReplayReport{Replayed: 1}, moving)

	stack.Approve(t, first.GetID(), firstAction.ID)
	stack.Approve(t, second.GetID(), secondAction.ID)

	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, first).Status)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, second).Status)
	requirePinnedTo(t, stack.Client(), first.GetID(), buildA)
	requirePinnedTo(t, stack.Client(), second.GetID(), buildB)
	require.Equal(t, 1, commentsOf(stack, first.GetID()))
	require.Equal(t, 1, commentsOf(stack, second.GetID()))
	require.Equal(t, worker.WorkerDeploymentVersion{DeploymentName: buildB.Name, BuildID: "b"}, *describeCurrent(t, stack.Client(), buildB.Name))
}
