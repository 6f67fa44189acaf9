// This file is a run's model call: the step that records it, and where it
// runs. A call whose model may stream is an activity the server schedules,
// whose heartbeats carry what the model writes; once the run's last answer
// says its worker's model has nothing to stream (api.ModelDecision.Local),
// the next call's first try is a local activity, run in the workflow task
// that asks for it, as a read's first try is.

package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

func (w *agentRun) callModel(ctx workflow.Context) (api.ModelDecision, error) {
	w.setLabel(api.LabelThinking)
	if w.Run.Status != api.RunRunning {
		w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
	}
	tools := w.offeredTools()
	in, size, err := modelInput(&w.encoding, workflow.GetInfo(ctx).WorkflowExecution.ID, w.Conversation, tools, w.in.InlineConversationBytes)
	if err != nil {
		return api.ModelDecision{}, err
	}
	in.Tools, in.Agent, in.PostsWithoutAsking = nil, w.agent.Name, w.Run.PostsWithoutAsking
	safeInput := map[string]any{
		"conversationLength": len(w.Conversation), "conversationBytes": size, "tools": toolNames(tools),
	}
	if in.Ref != nil {
		safeInput["conversationDigest"] = in.Ref.Digest
	}
	w.offer(ctx, in.Ref)
	st := w.newStep(ctx, api.StepModelCall, "", "", redact.JSON(safeInput))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	var d api.ModelDecision
	if err := w.askModel(ctx, st, in, &d); err != nil {
		if ctx.Err() != nil {
			return d, ctx.Err()
		}
		msg := "model call failed: " + errorMessage(err)
		w.setStepStatus(ctx, st, api.StepFailed, msg)
		return d, errors.New(msg)
	}
	// Decided by what the history holds, so a replay decides the same; a
	// worker whose model changed since answers so, and the next call
	// follows it.
	w.ModelLocal = d.Local
	usage := d.Usage
	st.Usage = &usage
	w.Run.Usage.PromptTokens += usage.PromptTokens
	w.Run.Usage.CompletionTokens += usage.CompletionTokens
	st.SafeOutput = redact.JSON(d)
	w.setStepStatus(ctx, st, api.StepSucceeded, "")
	return d, nil
}

// askModel runs a model call's tries: all of them as one activity
// (modelCallOptions), or, when the last answer allows and the run waited on the
// server since its last local call, the first as a local activity
// (modelCallFirstTryOptions) and, when that fails and may be retried, the others
// as one activity (modelRetryOptions), named after the step with api.ReadRetry so
// that the status view counts the local try.
func (w *agentRun) askModel(ctx workflow.Context, st *api.AgentStep, in api.ModelInput, d *api.ModelDecision) error {
	target, call := w.Run.TargetName(), w.ModelCalls()
	if !w.ModelLocal || w.localSinceWait {
		w.localSinceWait = false
		actx := workflow.WithActivityOptions(ctx, w.ofStep(modelCallOptions(target, call), st, "", 0))
		return workflow.ExecuteActivity(actx, api.ActivityModelNext, in).Get(ctx, d)
	}
	w.localSinceWait = true
	// A local activity's input is no part of the history, so the
	// conversation goes inline: the try never needs the handoff, nor the
	// conversation query, which would wait behind the very workflow task
	// this try holds.
	local := in
	if in.Ref != nil {
		local.Conversation, local.Ref = w.Conversation, nil
	}
	// By name, as a read's first try (startRead).
	lctx := workflow.WithLocalActivityOptions(ctx, modelCallFirstTryOptions(target, call))
	err := workflow.ExecuteLocalActivity(lctx, api.ActivityModelNext, local).Get(ctx, d)
	if err == nil || ctx.Err() != nil || !mayRetry(err, modelNonRetryable) {
		return err
	}
	w.stepNote(ctx, st, "try 1 failed: "+errorMessage(err))
	if err := workflow.Sleep(ctx, firstRetryDelay(err)); err != nil {
		return err
	}
	// The local try took the handed-over conversation; the activity may
	// start on this worker too.
	w.offer(ctx, in.Ref)
	w.localSinceWait = false
	actx := workflow.WithActivityOptions(ctx, w.ofStep(modelRetryOptions(target, call), st, api.ReadRetry, 2))
	return workflow.ExecuteActivity(actx, api.ActivityModelNext, in).Get(ctx, d)
}

// offer hands the conversation over to the model call ref names, on a
// worker that registered a handoff beside the workflow.
func (w *agentRun) offer(ctx workflow.Context, ref *api.ConversationRef) {
	if w.handoff != nil {
		w.handoff.Offer(ref, w.Conversation, workflow.IsReplaying(ctx))
	}
}
