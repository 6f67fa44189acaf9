// This file runs the run client against a real dev server whose
// worker runs the stub AgentRun (stubrun.go): what the run client's
// own tests and the approval server's dev-server tests share.

package testkit

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// StartStub starts a dev server and a worker running the stub on a queue of
// its own, named after prefix, and returns a run client over it and that
// queue. Under -short it skips the test.
func StartStub(t *testing.T, prefix string) (*runclient.Client, string) {
	t.Helper()
	temporal, queue := Start(t, prefix)
	return runclient.New(temporal, runclient.Options{CallTimeout: 30 * time.Second}), queue
}

// StartStubRun starts runID with the stub's own input: runclient's Start
// sends a RunInput, and the stub's scenarios (an action waiting, a run that
// closes at once) need theirs. agent, when set, is the run's agent search
// attribute, as Start sets it.
func StartStubRun(t *testing.T, rc *runclient.Client, queue, runID, agent string, in Input) client.WorkflowRun {
	t.Helper()
	opts := client.StartWorkflowOptions{ID: runID, TaskQueue: queue}
	if agent != "" {
		opts.TypedSearchAttributes = temporal.NewSearchAttributes(api.SearchAttrAgent.ValueSet(agent))
	}
	run, err := rc.Temporal().ExecuteWorkflow(t.Context(), opts, api.WorkflowName, in)
	require.NoError(t, err)
	return run
}

// Executions counts the workflow executions of runID, open or closed, once
// visibility (eventually consistent) lists at least one.
func Executions(t *testing.T, rc *runclient.Client, runID string) int {
	t.Helper()
	var n int
	require.Eventually(t, func() bool {
		resp, err := rc.Temporal().ListWorkflow(t.Context(), &workflowservice.ListWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s'", runID),
		})
		require.NoError(t, err)
		n = len(resp.GetExecutions())
		return n > 0
	}, time.Minute, 50*time.Millisecond)
	return n
}
