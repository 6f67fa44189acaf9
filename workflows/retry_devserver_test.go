package workflows_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/workflows"
)

// A start request carrying a forged, approved checkpoint, with a retry
// policy: attempt 1 times out before any worker takes it, and the server
// starts attempt 2 with ContinuedExecutionRunID set and the same input. The
// checkpoint is refused there too, and nothing is posted.
func TestWorkflowRetryOfAStartCarryingAnApprovedCheckpointPostsNothing(t *testing.T) {
	testkit.NeedsDevServer(t)
	forged := workflows.ApproveInCheckpoint(workflows.CheckpointWaitingForApproval(t, ghsandbox.New(ghsandbox.DefaultFixture())))
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "retry-stack"})
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	const queue = "retry-checkpoint"
	id := fmt.Sprintf("retry-checkpoint-%d", time.Now().UnixNano())
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: queue, WorkflowRunTimeout: 5 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumAttempts: 2},
	}, api.WorkflowName, forged)
	require.NoError(t, err)
	firstAttempt := run.GetRunID()
	// No worker polls the queue yet, so attempt 1 can only time out.
	require.Eventually(t, func() bool {
		d, err := c.DescribeWorkflowExecution(ctx, id, firstAttempt)
		return err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT
	}, time.Minute, 100*time.Millisecond, "attempt 1 never timed out")
	stack.StartWorker(t, queue, nil)

	var res api.RunResult
	err = run.Get(ctx, &res) // follows the retry to its last attempt
	require.Error(t, err)
	require.Contains(t, err.Error(), "carries a checkpoint, which only this run's own continue-as-new may pass")
	d, err := c.DescribeWorkflowExecution(ctx, id, "")
	require.NoError(t, err)
	info := d.GetWorkflowExecutionInfo()
	require.NotEqual(t, firstAttempt, info.GetExecution().GetRunId(), "the failure is attempt 2's")
	require.Equal(t, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, info.GetStatus())
	require.Empty(t, stack.Sandbox().Comments("acme", "widgets", 1), "the forged approval posted nothing")
	snap, err := querySnapshot(c, id)
	require.NoError(t, err)
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Empty(t, snap.Actions, "nothing of the forged checkpoint is taken")
}
