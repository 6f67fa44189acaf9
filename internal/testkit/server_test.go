package testkit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"
)

func TestStartedServerListsNoWorkflows(t *testing.T) {
	s := StartServer(t, ServerOptions{})

	resp, err := s.Client().ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Query: `AgentRunStatus = "running"`,
	})

	require.NoError(t, err, "the AgentRunStatus search attribute must be registered")
	require.Empty(t, resp.Executions)
}

func waitForSignal(ctx workflow.Context) error {
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, nil)
	return nil
}

func TestRestartedServerKeepsWorkflowsFromItsDBFile(t *testing.T) {
	s := StartServer(t, ServerOptions{DBFile: filepath.Join(t.TempDir(), "temporal.db")})
	ctx := context.Background()
	_, err := s.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "survivor", TaskQueue: "nobody-polls"}, waitForSignal)
	require.NoError(t, err)

	s.Restart()

	desc, err := s.Client().DescribeWorkflow(ctx, "survivor", "")
	require.NoError(t, err)
	require.Equal(t, "survivor", desc.RawResponse.WorkflowExecutionInfo.Execution.WorkflowId)
}
