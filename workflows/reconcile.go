package workflows

import (
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// maxCreateAttempts bounds how often one operationKey is tried.
const maxCreateAttempts = 10

// runGatedTool drives an action's step to a terminal status: approval (when
// it asks), then the call under its operationKey, reconciling whenever the
// outcome is unknown. The step status is the state machine, so the same code
// resumes a step carried across a continue-as-new.
func (w *agentRun) runGatedTool(ctx workflow.Context, st *api.AgentStep, c tools.Checked) (string, error) {
	w.beginAction(ctx, st, c)
	c = w.approvedCall(st, c)
	for {
		var err error
		switch st.Status {
		case api.StepPending:
			if w.cancelling(ctx) != nil {
				return "", errCancelled
			}
			if c.Ask {
				w.requestApproval(ctx, st, c)
				w.proposeTurn(ctx)
			} else {
				w.setLabel(words(st).Making())
				w.setStepStatus(ctx, st, api.StepRunning, "runs without approval (gate: "+string(tools.NeverAsk)+")")
			}
		case api.StepWaitingForApproval:
			// An action proposed with an earlier one of its turn waits
			// again once that one is settled.
			if pa := w.ActionForStep(st.ID); pa.State == api.ActionWaiting && w.Run.Status != api.RunWaitingForUser {
				w.setRunStatus(ctx, api.RunWaitingForUser, words(st).WaitingLabel(), "")
			}
			var content string
			if content, err = w.awaitDecision(ctx, st); err == nil && content != "" {
				return content, nil
			}
			c = w.approvedCall(st, c)
		case api.StepRunning:
			if cancel := w.cancelling(ctx); cancel != nil {
				// Approved but not yet tried: nothing happened, and nothing will.
				w.setStepStatus(ctx, st, api.StepFailed, "not attempted: "+cancel.Detail())
				return "", errCancelled
			}
			err = w.attemptCreate(ctx, st, c)
		case api.StepOutcomeUnknown:
			err = w.reconcile(ctx, st, c)
		case api.StepSucceeded:
			return w.editedResult(st, string(st.SafeOutput)), nil
		default:
			return "failed: " + st.Error, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// beginAction gives an action's step its operationKey, recorded before any
// attempt.
func (w *agentRun) beginAction(ctx workflow.Context, st *api.AgentStep, c tools.Checked) {
	if st.OperationKey != "" {
		return
	}
	st.OperationKey = fmt.Sprintf("%s:%d", w.Run.ID, st.Sequence)
	filled := c.Spec.Words.Or(st.ToolName)
	st.Words = &filled
	st.SafeInput = redact.JSON(map[string]any{"target": c.Touches, "preview": c.Preview})
	w.stepNote(ctx, st, "operationKey "+st.OperationKey)
}

// proposeTurn asks at once for the approval of every later action of the
// turn that asks one, so that each shows in the inbox and a person may
// decide them in any order, or in one batch. They still run in call order.
func (w *agentRun) proposeTurn(ctx workflow.Context) {
	if len(w.OpenToolCalls) < 2 {
		return
	}
	for _, call := range w.OpenToolCalls[1:] {
		if w.openStepFor(call.ID) != nil {
			continue
		}
		c, refusal := w.checkCall(call)
		if refusal != "" || c.Action == nil || !c.Ask {
			continue
		}
		st := w.newStep(ctx, api.StepToolCall, call.ID, call.Name, safeArguments(call.Arguments))
		w.beginAction(ctx, st, c)
		w.requestApproval(ctx, st, c)
	}
}

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
		w.actionDone(ctx, st, out, "")
		return nil
	}
	if msg, rejected := rejection(err); rejected {
		w.setStepStatus(ctx, st, api.StepFailed, msg)
		return nil
	}
	if wait, msg, limited := rateLimited(err); limited {
		w.setStepStatus(ctx, st, api.StepOutcomeUnknown, fmt.Sprintf("%s; waiting %s", msg, wait))
		w.setRunStatus(ctx, api.RunReconciling, api.LabelRateLimited, fmt.Sprintf("retry after %s", wait))
		err := w.sleep(ctx, wait, fmt.Sprintf("Wait %s for the rate limit before trying again", api.HumanDuration(wait)))
		if w.cancelling(ctx) != nil {
			return nil // the loop reconciles before the run ends
		}
		return err
	}
	w.setStepStatus(ctx, st, api.StepOutcomeUnknown, errorMessage(err))
	return nil
}

func (w *agentRun) attemptOptions(st *api.AgentStep) workflow.ActivityOptions {
	approvedBy := ""
	if pa := w.ActionForStep(st.ID); pa != nil {
		approvedBy = pa.DecidedBy
	}
	return attemptActivityOptions(st.ToolName, approvedBy, w.Run.TargetRef(), st.OperationKey, st.Attempt, w.in.ToolTimeout)
}

// actionDone settles the step on the effect that proves it.
func (w *agentRun) actionDone(ctx workflow.Context, st *api.AgentStep, out api.ToolOutput, detail string) {
	st.ExternalResourceID = out.ExternalID
	st.SafeOutput = out.SafeOutput
	if st.SafeOutput == nil {
		st.SafeOutput = redact.JSON(out.Content)
	}
	w.setStepStatus(ctx, st, api.StepSucceeded, detail)
}

// words are an action step's, in which its labels say what it does.
func words(st *api.AgentStep) api.ToolWords { return api.WordsOf(st.Words, st.ToolName) }

// reconcile asks the tool whether the step's operationKey already has its
// effect.
func (w *agentRun) reconcile(ctx workflow.Context, st *api.AgentStep, c tools.Checked) error {
	w.setRunStatus(ctx, api.RunReconciling, words(st).Checking(), "")
	// On the steady context: a cancel waits for the reconcile's answer.
	actx := workflow.WithActivityOptions(w.steadyOr(ctx), w.ofStep(reconcileOptions(st.ToolName, w.Run.TargetRef(), st.OperationKey, w.in.ToolTimeout), st, "reconcile", st.Attempt))
	var res api.ToolReconciliation
	if err := workflow.ExecuteActivity(actx, api.ActivityReconcileTool, w.toolInput(st, c)).Get(actx, &res); err != nil {
		res = api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "lookup failed: " + errorMessage(err)}
	}
	w.reportLookalikes(ctx, st, res.Output.Ignored)
	countReconciliation(ctx, w.in.Agent, res.Outcome)
	switch res.Outcome {
	case api.ReconcileFound:
		res.Output.AlreadyExisted = true
		w.actionDone(ctx, st, res.Output, "found the effect already done")
		w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
		return nil
	case api.ReconcileNotCreated:
		return w.notCreated(ctx, st)
	default:
		if w.cancelling(ctx) != nil {
			// Nobody will resolve a cancelled run: the step stays in
			// doubt, and the run's end says so.
			return errCancelled
		}
		return w.awaitResolve(ctx, st, res.Reason)
	}
}

// sleep is workflow.Sleep with a summary for the Temporal UI.
func (w *agentRun) sleep(ctx workflow.Context, d time.Duration, summary string) error {
	return workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: summary}).Get(ctx, nil)
}

// reportLookalikes records each look-alike of the step's effect that was not
// taken as proof, so that someone forging a marker shows in the run.
func (w *agentRun) reportLookalikes(ctx workflow.Context, st *api.AgentStep, ignored []api.IgnoredComment) {
	for _, c := range ignored {
		w.emit(ctx, api.EventLookalikeIgnored, st.ID, string(st.Status), lookalikeNote(c))
	}
}

// retryCreate sends the same step, with the same operationKey, round again.
func (w *agentRun) retryCreate(ctx workflow.Context, st *api.AgentStep, why string) error {
	if cancel := w.cancelling(ctx); cancel != nil {
		w.setStepStatus(ctx, st, api.StepFailed, why+"; not tried again: "+cancel.Detail())
		return nil
	}
	if st.Attempt >= maxCreateAttempts {
		w.setStepStatus(ctx, st, api.StepFailed, fmt.Sprintf("%s after %d attempts; giving up", why, st.Attempt))
		w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
		return nil
	}
	if st.Attempt > 1 {
		backoff := min(time.Duration(1<<(st.Attempt-1))*time.Second, time.Minute)
		w.setRunStatus(ctx, api.RunReconciling, words(st).BackoffLabel(), fmt.Sprintf("waiting %s", backoff))
		err := w.sleep(ctx, backoff, fmt.Sprintf("Wait %s before %s attempt %d", api.HumanDuration(backoff), words(st).Gerund(), st.Attempt+1))
		if cancel := w.cancelling(ctx); cancel != nil {
			w.setStepStatus(ctx, st, api.StepFailed, why+"; not tried again: "+cancel.Detail())
			return nil
		}
		if err != nil {
			return err
		}
	}
	st.Attempt++
	// The new attempt's own request opens a new window.
	st.ResendNotBefore = nil
	w.setStepStatus(ctx, st, api.StepRunning, fmt.Sprintf("%s; attempt %d with the same operationKey", why, st.Attempt))
	return nil
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
		return w.retryCreate(ctx, st, "retry ordered by "+r.By)
	case api.ResolveMarkSucceeded:
		w.actionDone(ctx, st, w.markedSucceeded(r), "marked succeeded by "+r.By)
	default:
		w.setStepStatus(ctx, st, api.StepFailed, "abandoned by "+r.By)
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
