package workflows_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// What the triage recordings need beyond the other scenarios: a sandbox of
// its own for fixture.AddTwoTodosPull, and the check of what triage did.

// startSandboxWorker serves the default fixture, edited, from a sandbox of
// its own, and starts a worker on taskQueue whose GitHub tools call it.
func startSandboxWorker(t *testing.T, c client.Client, taskQueue string, edit func(*ghsandbox.Fixture)) *ghsandbox.Server {
	f := ghsandbox.DefaultFixture()
	edit(&f)
	sandbox := ghsandbox.New(f)
	testkit.StartSandboxWorker(t, c, taskQueue, sandbox)
	return sandbox
}

// requireTriaged checks a triage run end to end: the labels were added once
// without asking, and each of its issues was approved, then filed exactly
// once, in call order, its step pointing at it.
func requireTriaged(issues int) func(*testing.T, client.Client, api.RunSnapshot, *ghsandbox.Server) {
	return func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
		require.Equal(t, agents.Triage, snap.Run.Agent)
		require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
		require.Len(t, snap.Actions, issues, "one approval per issue, none for the labels")
		for _, pa := range snap.Actions {
			require.Equal(t, api.ToolCreateIssue, pa.ToolName)
			require.Equal(t, api.ActionApproved, pa.State)
			require.Equal(t, "alice", pa.DecidedBy)
		}
		var labels []string
		var filed []api.AgentStep
		for _, st := range snap.Steps {
			switch {
			case st.Type != api.StepToolCall:
			case st.ToolName == api.ToolAddLabels:
				labels = append(labels, st.ExternalResourceID)
			case st.ToolName == api.ToolCreateIssue:
				require.Equal(t, api.StepSucceeded, st.Status, st.Error)
				filed = append(filed, st)
			}
		}
		require.NotEmpty(t, sandbox.Labels("acme", "widgets", snap.Run.PullNumber))
		require.Equal(t, []string{strings.Join(sandbox.Labels("acme", "widgets", snap.Run.PullNumber), ",")}, labels, "labelled once")
		made := sandbox.Issues("acme", "widgets")
		require.Len(t, filed, issues)
		require.Len(t, made, issues, "each issue filed once")
		for i, is := range made {
			require.Equal(t, filed[i].ExternalResourceID, strconv.Itoa(is.Number), "filed in call order")
			require.Contains(t, is.Body, api.OperationMarker(filed[i].OperationKey))
		}
	}
}

// approvedSteps are the steps of the run's approved actions, in the order the
// run's events say they were approved.
func approvedSteps(t *testing.T, c client.Client, id string) []string {
	v, err := c.QueryWorkflow(context.Background(), id, "", api.QueryEvents, int64(0))
	require.NoError(t, err)
	var events []api.Event
	require.NoError(t, v.Get(&events))
	var steps []string
	for _, e := range events {
		if e.Type == api.EventActionState && e.Status == string(api.ActionApproved) {
			steps = append(steps, e.StepID)
		}
	}
	return steps
}
