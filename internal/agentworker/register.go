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
//
// AgentRun is pinned: on a versioned worker, a run stays on the build that
// started it, so a run that waits a day for approval is never replayed on
// code deployed in the meantime. An unversioned worker ignores the behaviour.
func Register(w worker.Registry, acts *activities.Activities) {
	w.RegisterWorkflowWithOptions(workflows.AgentRun, workflow.RegisterOptions{
		Name:               api.WorkflowName,
		VersioningBehavior: workflow.VersioningBehaviorPinned,
	})
	w.RegisterActivity(acts)
}
