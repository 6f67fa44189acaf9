package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// Definition is the AgentRun workflow over one tool registry: a worker
// registers Definition.AgentRun under api.WorkflowName, with activities over
// the same registry.
type Definition struct {
	registry *tools.Registry
	handoff  *activities.ConversationHandoff
}

// New is the workflow over reg, which it only reads.
func New(reg *tools.Registry) *Definition { return &Definition{registry: reg} }

// HandingOver is the workflow handing each model call's conversation to h,
// the ConversationStore of the activities registered beside it.
func (d *Definition) HandingOver(h *activities.ConversationHandoff) *Definition {
	return &Definition{registry: d.registry, handoff: h}
}

// builtin is the workflow over the built-in tools and agents. Its tools are
// never executed here, so they need no GitHub access.
var builtin = New(agents.MustBuiltin(nil))

// AgentRun is the durable agent loop: model call, tool calls, repeat, until
// the model gives a final answer. The workflow ID is the run ID.
func (d *Definition) AgentRun(ctx workflow.Context, in api.RunInput) (api.RunResult, error) {
	w, err := setup(ctx, in, d.registry)
	if err != nil {
		return failedAtSetup(err)
	}
	w.handoff = d.handoff
	res, err := w.run(ctx)
	return w.endWithCallback(ctx, res, err)
}

// AgentRun is the workflow over the built-in tools and agents.
func AgentRun(ctx workflow.Context, in api.RunInput) (api.RunResult, error) {
	return builtin.AgentRun(ctx, in)
}
