package workflows

import (
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// This file looks for an action's effect under its operationKey when an
// attempt's outcome is unknown, and waits for an operator when the look
// cannot tell.

// reconcile asks the tool whether the step's operationKey already has its
// effect. Not created sends the same operationKey round again, through the
// gate; cannot tell waits for an operator, or, in a cancelled run, ends it
// with the step in doubt once its attempt can no longer land.
func (w *agentRun) reconcile(ctx workflow.Context, st *api.AgentStep, c tools.Checked) error {
	w.setRunStatus(ctx, api.RunReconciling, words(st).Checking(), "")
	looked := workflow.Now(ctx)
	res := w.look(ctx, st, c)
	switch res.Outcome {
	case api.ReconcileFound:
		w.settleFound(ctx, st, res)
		return nil
	case api.ReconcileNotCreated:
		if st.ResendNotBefore == nil {
			// An attempt in doubt always records its window; a step that
			// lacks one gets it from this look, later than any it had.
			at := resendNotBefore(looked, w.in.ToolTimeout, c.Spec.ResendMargin())
			st.ResendNotBefore = &at
		}
		return w.retryCreate(ctx, st, "not created", looked)
	default:
		if w.cancelling(ctx) == nil {
			err := w.awaitResolve(ctx, st, res.Reason)
			if err == nil || w.cancelling(ctx) == nil {
				return err
			}
			w.AwaitingResolve = "" // cancelled while it waited
		}
		if mayLandAfter(st, looked) {
			// The attempt may land after this look: the gate looks until
			// it can no longer, and sends nothing.
			return w.retryCreate(ctx, st, "cannot tell: "+res.Reason, time.Time{})
		}
		// Nobody will resolve a cancelled run: the step stays in doubt,
		// and the run's end says so.
		return errCancelled
	}
}

// look asks the tool once (with the activity's retries) whether the step's
// operationKey has its effect; a look that fails cannot tell.
func (w *agentRun) look(ctx workflow.Context, st *api.AgentStep, c tools.Checked) api.ToolReconciliation {
	// On the steady context: a cancel waits for the look's answer.
	actx := workflow.WithActivityOptions(w.steadyOr(ctx), w.ofStep(reconcileOptions(st.ToolName, w.Run.TargetName(), st.OperationKey, w.in.ToolTimeout), st, "reconcile", st.Attempt))
	var res api.ToolReconciliation
	if err := workflow.ExecuteActivity(actx, api.ActivityReconcileTool, w.toolInput(st, c)).Get(actx, &res); err != nil {
		res = api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "lookup failed: " + errorMessage(err)}
	}
	w.reportLookalikes(ctx, st, res.Output.Ignored)
	countReconciliation(ctx, w.in.Agent, res.Outcome)
	return res
}

// settleFound settles the step on the effect a look found.
func (w *agentRun) settleFound(ctx workflow.Context, st *api.AgentStep, res api.ToolReconciliation) {
	res.Output.AlreadyExisted = true
	st.ResendNotBefore, st.RetryOrderedBy = nil, ""
	w.actionDone(ctx, st, res.Output, api.EffectFound, "found the effect already done")
	w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
}

// reportLookalikes records each look-alike of the step's effect that was not
// taken as proof, so that someone forging a marker shows in the run.
func (w *agentRun) reportLookalikes(ctx workflow.Context, st *api.AgentStep, ignored []api.IgnoredComment) {
	for _, c := range ignored {
		w.emit(ctx, api.EventLookalikeIgnored, st.ID, string(st.Status), lookalikeNote(c, words(st)))
	}
}

// awaitResolve parks the run until an operator says what happened.
func (w *agentRun) awaitResolve(ctx workflow.Context, st *api.AgentStep, reason string) error {
	w.AwaitingResolve = st.ID
	w.resolution = nil
	w.setRunStatus(ctx, api.RunReconciling, words(st).CannotTellLabel(), reason)
	err := workflow.Await(ctx, func() bool { return w.resolution != nil || w.continueAsNewDue(ctx) })
	if err != nil {
		return err
	}
	if w.resolution == nil {
		return errContinueAsNew
	}
	r := *w.resolution
	w.AwaitingResolve, w.resolution = "", nil
	switch r.Decision {
	case api.ResolveRetry:
		// Taken, never refused: the gate holds it while the last attempt
		// may land, and a look that finds the effect settles it instead.
		st.RetryOrderedBy = r.By
		return w.retryCreate(ctx, st, "retry ordered by "+r.By, time.Time{})
	case api.ResolveMarkSucceeded:
		w.actionDone(ctx, st, w.markedSucceeded(r), api.EffectMarked, "marked succeeded by "+r.By)
	default:
		// Abandoned is not "not done": the effect may exist, and every
		// answer of the step says so (api.InDoubt).
		w.setStepStatus(ctx, st, api.StepFailed, fmt.Sprintf("%s%s; the %s may have been %s: nobody saw whether it was",
			api.AbandonedBy, r.By, words(st).Noun, words(st).Past))
	}
	w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
	return nil
}

func (w *agentRun) onResolve(ctx workflow.Context, raw json.RawMessage) {
	var sig api.ResolveSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		w.ignore(ctx, "", "malformed resolve signal: "+err.Error())
		return
	}
	if why := refuseResolve(sig, w.AwaitingResolve, w.resolution); why != "" {
		w.ignore(ctx, sig.StepID, why)
		return
	}
	w.resolution = &sig
	w.emit(ctx, api.EventStepStatus, sig.StepID, string(api.StepOutcomeUnknown), "resolve "+sig.Decision+" by "+sig.By)
}

// markedSucceeded is what an operator's mark_succeeded makes of a step.
func (w *agentRun) markedSucceeded(r api.ResolveSignal) api.ToolOutput {
	content, _ := json.Marshal(map[string]string{"externalId": r.ExternalResourceID, "markedSucceededBy": r.By})
	return api.ToolOutput{Content: content, ExternalID: r.ExternalResourceID, AlreadyExisted: true}
}
