package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// This file sends an action's attempts: one request under the step's
// operationKey, never retried blindly by Temporal.

// maxCreateAttempts bounds how often one operationKey is tried.
const maxCreateAttempts = 10

// attemptCreate makes one attempt. Temporal never retries it blindly: any
// outcome other than success or a proven refusal leaves the step
// outcome_unknown for reconcile.
func (w *agentRun) attemptCreate(ctx workflow.Context, st *api.AgentStep, c tools.Checked) error {
	if pa := w.ActionForStep(st.ID); c.Ask && (pa == nil || pa.State != api.ActionApproved || pa.ArgsHash != c.ArgsHash) {
		w.setStepStatus(ctx, st, api.StepFailed, "refused: the action to run is not the one approved")
		return nil
	}
	// After approval the run is already running and says it is posting; a
	// retry comes from reconciling and must say so again.
	if w.Run.Status != api.RunRunning {
		w.setRunStatus(ctx, api.RunRunning, words(st).Making(), fmt.Sprintf("attempt %d", st.Attempt))
	}
	// On the steady context: a cancel waits for the attempt's answer.
	actx := workflow.WithActivityOptions(w.steadyOr(ctx), w.ofStep(w.attemptOptions(st), st, "create", st.Attempt))
	var out api.ToolOutput
	err := workflow.ExecuteActivity(actx, api.ActivityExecuteTool, w.toolInput(st, c)).Get(actx, &out)
	if err == nil {
		w.reportLookalikes(ctx, st, out.Ignored)
		effect := api.EffectMade
		if out.AlreadyExisted {
			effect = api.EffectFound // its look found what an earlier attempt made
		}
		w.actionDone(ctx, st, out, effect, "")
		return nil
	}
	if msg, rejected := rejection(err); rejected {
		w.setStepStatus(ctx, st, api.StepFailed, msg)
		return nil
	}
	if wait, msg, limited := rateLimited(err); limited {
		w.inDoubt(ctx, st, c, fmt.Sprintf("%s; waiting %s", msg, wait))
		w.setRunStatus(ctx, api.RunReconciling, api.LabelRateLimited, fmt.Sprintf("retry after %s", wait))
		err := w.sleep(ctx, wait, fmt.Sprintf("Wait %s for the rate limit before trying again", api.HumanDuration(wait)))
		if w.cancelling(ctx) != nil {
			return nil // the loop reconciles before the run ends
		}
		return err
	}
	w.inDoubt(ctx, st, c, errorMessage(err))
	return nil
}

func (w *agentRun) attemptOptions(st *api.AgentStep) workflow.ActivityOptions {
	approvedBy := ""
	if pa := w.ActionForStep(st.ID); pa != nil {
		approvedBy = pa.DecidedBy
	}
	return attemptActivityOptions(st.ToolName, approvedBy, w.Run.TargetName(), st.OperationKey, st.Attempt, w.in.ToolTimeout)
}

// actionDone settles the step on the effect that proves it, made, found or
// marked done.
func (w *agentRun) actionDone(ctx workflow.Context, st *api.AgentStep, out api.ToolOutput, effect api.StepEffect, detail string) {
	st.ExternalResourceID, st.Effect = out.ExternalID, effect
	st.SafeOutput = out.SafeOutput
	if st.SafeOutput == nil {
		st.SafeOutput = redact.JSON(out.Content)
	}
	w.setStepStatus(ctx, st, api.StepSucceeded, detail)
}

// sleep is workflow.Sleep with a summary for the Temporal UI.
func (w *agentRun) sleep(ctx workflow.Context, d time.Duration, summary string) error {
	return workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: summary}).Get(ctx, nil)
}

// retryCreate sends the same step, with the same operationKey, round again:
// after a backoff that grows with its attempts, it moves to running, where
// the gate holds the attempt while the one before may still land. looked
// is when the look that did not find the effect started, or zero when no
// look said so (an operator's retry on a look that could not tell). In a
// cancelled run nothing more is sent: the step ends not tried again once
// such a look started after the last attempt could land, else the gate
// looks until it cannot.
func (w *agentRun) retryCreate(ctx workflow.Context, st *api.AgentStep, why string, looked time.Time) error {
	if st.Attempt > 1 && st.Attempt < maxCreateAttempts && w.cancelling(ctx) == nil {
		backoff := min(time.Duration(1<<(st.Attempt-1))*time.Second, time.Minute)
		w.setRunStatus(ctx, api.RunReconciling, words(st).BackoffLabel(), fmt.Sprintf("waiting %s", backoff))
		err := w.sleep(ctx, backoff, fmt.Sprintf("Wait %s before %s attempt %d", api.HumanDuration(backoff), words(st).Gerund(), st.Attempt+1))
		if err != nil && w.cancelling(ctx) == nil {
			return err
		}
	}
	cancel := w.cancelling(ctx)
	if cancel != nil && !looked.IsZero() && !mayLandAfter(st, looked) {
		w.setStepStatus(ctx, st, api.StepFailed, why+"; not tried again: "+cancel.Detail())
		return nil
	}
	detail := fmt.Sprintf("%s; attempt %d with the same operationKey", why, st.Attempt+1)
	if cancel != nil {
		detail = fmt.Sprintf("%s; not tried again: %s; looking for the %s once more", why, cancel.Detail(), words(st).Noun)
		if w.mayLand(ctx, st) {
			detail += ", as its attempt may land until " + clock(*st.ResendNotBefore)
		}
	} else if w.mayLand(ctx, st) {
		detail += "; held: " + words(st).Held(clock(*st.ResendNotBefore))
	}
	w.setStepStatus(ctx, st, api.StepRunning, detail)
	return nil
}

// giveUp ends a step whose attempts ran out. The gate let the last one
// through on a look that found nothing, or on an operator's retry when
// the look could not tell: that one stays in doubt, for an operator.
func (w *agentRun) giveUp(ctx workflow.Context, st *api.AgentStep) {
	if by := st.RetryOrderedBy; by != "" {
		st.RetryOrderedBy = ""
		w.setStepStatus(ctx, st, api.StepOutcomeUnknown, fmt.Sprintf(
			"the retry ordered by %s is not sent: %d attempts were made, and the look cannot tell whether one of them was %s", by, st.Attempt, words(st).Past))
		return
	}
	w.setStepStatus(ctx, st, api.StepFailed, fmt.Sprintf("not created after %d attempts; giving up", st.Attempt))
	w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
}
