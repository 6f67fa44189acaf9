package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// Definition is the AgentRun workflow over one tool registry: a worker
// registers Definition.AgentRun under api.WorkflowName, with activities over
// the same registry (package registration does both).
type Definition struct {
	registry *tools.Registry
	handoff  ConversationHandoff
}

// ConversationHandoff takes the conversation of a model call the workflow
// schedules, so that the call, when it starts in the same process, need not
// query the run for it (activities.ConversationHandoff). Offer must not
// block on anything but its own lock and must change nothing the workflow
// reads; it is told when the workflow only replays a call that already ran.
type ConversationHandoff interface {
	Offer(ref *api.ConversationRef, conversation []api.Message, replaying bool)
}

// New is the workflow over reg, which it only reads.
func New(reg *tools.Registry) *Definition { return &Definition{registry: reg} }

// HandingOver is the workflow handing each model call's conversation to h,
// the conversation store of the activities registered beside it.
func (d *Definition) HandingOver(h ConversationHandoff) *Definition {
	return &Definition{registry: d.registry, handoff: h}
}

// AgentRun is the durable agent loop: model call, tool calls, repeat, until
// the model gives a final answer. The workflow ID is the run ID.
func (d *Definition) AgentRun(ctx workflow.Context, in api.RunInput) (api.RunResult, error) {
	w, err := setup(ctx, in, d.registry)
	if err != nil {
		return failedAtSetup(err)
	}
	w.handoff = d.handoff
	w.startCheck(ctx)
	w.markSupersededReview(ctx)
	res, err := w.run(ctx)
	w.settleCheck(ctx)
	return w.endWithCallback(ctx, res, err)
}
