// Package registration puts agentrun on a Temporal worker: the AgentRun
// workflow under its wire name and the activities, both over one tool
// registry. The worker main and a user's own worker main (with their own
// tools and agents, see docs/tools.md and examples/customtool) register
// through it, so that both serve runs the same way.
package registration

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/workflows"
)

// Register puts the AgentRun workflow (under api.WorkflowName), the holds
// workflow (api.HoldsWorkflowName: the operators' stop switch) and every
// method of acts on a worker or a test environment, both over acts.Tools:
// the built-in tools and agents over acts' GitHub access when it is nil.
// The workflow checks a call against the same registry the activities then
// run it from, so every worker of a task queue must register the same one.
//
// AgentRun is pinned: on a versioned worker, a run stays on the build that
// started it, so a run that waits a day for approval is never replayed on
// code deployed in the meantime. An unversioned worker ignores the behaviour.
func Register(w worker.Registry, acts *activities.Activities) {
	if acts.Tools == nil {
		acts.Tools = agents.MustBuiltin(acts.GitHub)
	}
	def := workflows.New(acts.Tools)
	if handoff, ok := acts.Conversations.(*activities.ConversationHandoff); ok {
		def = def.HandingOver(handoff)
	} else if acts.Conversations != nil {
		// Model calls that start where their run's workflow ran skip the query.
		handoff = activities.NewConversationHandoff(acts.Conversations)
		acts.Conversations, def = handoff, def.HandingOver(handoff)
	}
	w.RegisterWorkflowWithOptions(def.AgentRun, workflow.RegisterOptions{
		Name:               api.WorkflowName,
		VersioningBehavior: workflow.VersioningBehaviorPinned,
	})
	// The holds workflow lives as long as the namespace: pinned, it would
	// stay on the build that first started it, so it moves to each new one.
	w.RegisterWorkflowWithOptions(def.Holds, workflow.RegisterOptions{
		Name:               api.HoldsWorkflowName,
		VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade,
	})
	w.RegisterActivity(acts)
}
