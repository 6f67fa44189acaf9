package agentworker_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
)

func TestRunStrandedOnABuildWithoutWorkersFinishesOnceMovedToTheNewBuild(t *testing.T) {
	t.Parallel()
	queue := testkit.Unique(t, "versioned-stranded")
	deployment := testkit.Unique(t, "agentrun")
	stack := stackAside(t, queue)
	ctx, cancel := context.WithTimeout(context.Background(), testkit.RunTimeout)
	defer cancel()
	oldBuild := agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "old"}
	newBuild := agentworker.Deployment{Pinned: true, Name: deployment, BuildID: "new"}
	workerOld, optsOld := startVersionedWorker(t, stack, queue, oldBuild)
	_, err := agentworker.PromoteFirstVersion(ctx, stack.Client(), optsOld)
	require.NoError(t, err)
	run := stack.StartReview(t, queue)
	action := stack.WaitForApproval(t, run.GetID())
	// A deploy that replaced the workers: the old build's are gone.
	workerOld.Stop()
	_, optsNew := startVersionedWorker(t, stack, queue, newBuild)
	waitForVersion(t, stack.Client(), optsNew)
	_, err = stack.Client().WorkerDeploymentClient().GetHandle(deployment).SetCurrentVersion(ctx,
		client.WorkerDeploymentSetCurrentVersionOptions{BuildID: newBuild.BuildID})
	require.NoError(t, err)
	waitForOpenRunsOn(t, stack.Client(), oldBuild, 1)

	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	// The command docs/operations.md gives, as an operator would run it.
	move := exec.CommandContext(ctx, filepath.Join(root, "bin", "temporal"), "workflow", "update-options",
		"--address", stack.TemporalAddress(), "--yes",
		"--query", `TemporalWorkerDeploymentVersion="`+deployment+`:old" AND ExecutionStatus="Running"`,
		"--versioning-override-behavior", "pinned",
		"--versioning-override-deployment-name", deployment, "--versioning-override-build-id", "new")
	out, err := move.CombinedOutput()
	require.NoError(t, err, "%s", out)
	stack.Approve(t, run.GetID(), action.ID)

	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, run).Status)
	builds, _ := workflowTaskBuilds(t, stack.Client(), run.GetID())
	require.Equal(t, "old", builds[0], "the run started on the old build: %v", builds)
	require.Equal(t, "new", builds[len(builds)-1], "and finished on the new one: %v", builds)
	require.Equal(t, 1, commentsOf(stack, run.GetID()))
}
