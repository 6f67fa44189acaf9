package agentworker

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/workflows"
)

// Register puts the AgentRun workflow (under its wire name) and every method
// of acts on a worker or a test environment, both over acts.Tools: the
// built-in tools and agents over acts' GitHub access when it is nil.
//
// AgentRun is pinned: on a versioned worker, a run stays on the build that
// started it, so a run that waits a day for approval is never replayed on
// code deployed in the meantime. An unversioned worker ignores the behaviour.
func Register(w worker.Registry, acts *activities.Activities) {
	if acts.Tools == nil {
		acts.Tools = agents.MustBuiltin(activities.NewGitHubAccess(acts))
	}
	w.RegisterWorkflowWithOptions(workflows.New(acts.Tools).AgentRun, workflow.RegisterOptions{
		Name:               api.WorkflowName,
		VersioningBehavior: workflow.VersioningBehaviorPinned,
	})
	w.RegisterActivity(acts)
}
