package agentworker

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/workflows"
)

// Register puts the AgentRun workflow (under its wire name) and every method
// of acts on a worker or a test environment.
func Register(w worker.Registry, acts *activities.Activities) {
	w.RegisterWorkflowWithOptions(workflows.AgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
	w.RegisterActivity(acts)
}
