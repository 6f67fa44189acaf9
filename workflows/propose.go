// This file is the first part of an action's path: its step gets its
// operationKey, and the approval of it (and of the later actions of its
// turn) is asked. attempt.go sends it, gate.go holds a resend, and
// reconcile.go looks for its effect when an attempt's outcome is unknown.

package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// runGatedTool drives an action's step to a terminal status: approval (when
// it asks), then the call under its operationKey, reconciling whenever the
// outcome is unknown. The step status is the state machine, so the same code
// resumes a step carried across a continue-as-new.
func (w *agentRun) runGatedTool(ctx workflow.Context, st *api.AgentStep, c tools.Checked) (string, error) {
	w.beginAction(ctx, st, c)
	if st.Status == api.StepPending {
		found, err := w.foundEarlier(ctx, st, c)
		if err != nil {
			return "", err
		}
		if found {
			return w.editedResult(st, string(st.SafeOutput)), nil
		}
	}
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
				w.setStepStatus(ctx, st, api.StepRunning, w.unaskedNote())
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
			// Every attempt, whatever ordered it, passes the gate first; an
			// attempt after one in doubt finds its window there.
			resend := st.ResendNotBefore != nil
			var send bool
			if send, err = w.gate(ctx, st, c); err != nil || !send {
				break
			}
			if err = w.clearOfHolds(ctx, st, c); err != nil {
				break
			}
			if cancel := w.cancelling(ctx); cancel != nil {
				w.endUnsent(ctx, st, resend, cancel)
				return "", errCancelled
			}
			if resend && st.Attempt >= maxCreateAttempts {
				w.giveUp(ctx, st)
				continue
			}
			if resend {
				st.Attempt++
				w.stepNote(ctx, st, fmt.Sprintf("attempt %d sent: the one before can no longer land and was not found", st.Attempt))
			}
			err = w.attemptCreate(ctx, st, c)
		case api.StepOutcomeUnknown:
			err = w.reconcile(ctx, st, c)
		case api.StepSucceeded:
			return w.editedResult(st, string(st.SafeOutput)), nil
		default:
			if api.InDoubt(*st) {
				return api.InDoubtOf(w.Run.ID, *st).Answer(), nil
			}
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
	recorded := workflow.Now(ctx).UTC()
	st.KeyRecordedAt = &recorded
	filled := c.Spec.Words.Or(st.ToolName)
	st.Words = &filled
	st.SafeInput = redact.Action(c.Touches, map[string]any{"preview": c.Preview})
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

// words are an action step's, in which its labels say what it does.
func words(st *api.AgentStep) api.ToolWords { return api.WordsOf(st.Words, st.ToolName) }

// endUnsent ends a step whose attempt the gate let through but a cancel
// stopped. Not sent, and no earlier attempt can land any more: it failed,
// unless only an operator's retry let it through, its look unable to tell
// whether the earlier attempt landed. That one stays in doubt.
func (w *agentRun) endUnsent(ctx workflow.Context, st *api.AgentStep, resend bool, cancel *api.Cancellation) {
	if by := st.RetryOrderedBy; by != "" {
		st.RetryOrderedBy = ""
		w.setStepStatus(ctx, st, api.StepOutcomeUnknown, fmt.Sprintf("the retry ordered by %s is not sent: %s; the look could not tell whether the earlier attempt's %s was %s",
			by, cancel.Detail(), words(st).Noun, words(st).Past))
		return
	}
	why := "not attempted: "
	if resend {
		why = "not tried again: "
	}
	w.setStepStatus(ctx, st, api.StepFailed, why+cancel.Detail())
}

// foundEarlier looks, for an action that repeats one a followed-up run
// left in doubt (same tool, target and arguments), for that action's
// effect under its own operationKey before anything is asked: found, the
// step is that effect, and nothing is asked or sent. While that action's
// attempt may still land, the look is not the last word: the action is
// held, looking again, until it can no longer (holdLooking, the gate's
// wait). Not found or cannot tell, the action goes on, and its approval
// names the earlier one (caution).
func (w *agentRun) foundEarlier(ctx workflow.Context, st *api.AgentStep, c tools.Checked) (bool, error) {
	for _, a := range w.EarlierInDoubt {
		if a.Tool != st.ToolName || a.ArgsHash == "" || a.ArgsHash != c.ArgsHash || (a.Target != "" && a.Target != c.Touches) {
			continue
		}
		w.stepNote(ctx, st, fmt.Sprintf("repeats run %s's %s in doubt: looking under its operationKey %s first", a.RunID, words(st).Noun, a.OperationKey))
		actx := workflow.WithActivityOptions(w.steadyOr(ctx), w.ofStep(reconcileOptions(st.ToolName, w.Run.TargetName(), a.OperationKey, w.in.ToolTimeout), st, "earlier", 0))
		in := api.NewToolInput(st.ToolName, c.Call.Args, w.target, a.OperationKey, c.Preview)
		look := func() api.ToolReconciliation {
			var res api.ToolReconciliation
			if err := workflow.ExecuteActivity(actx, api.ActivityReconcileTool, in).Get(actx, &res); err != nil {
				return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "lookup failed: " + errorMessage(err)}
			}
			return res
		}
		looked := workflow.Now(ctx)
		res := look()
		if res.Outcome != api.ReconcileFound && a.ResendNotBefore != nil && looked.Before(*a.ResendNotBefore) {
			var err error
			res, err = w.holdLooking(ctx, st, *a.ResendNotBefore, w.in.ToolTimeout+c.Spec.ResendMargin(), func(at time.Time) string {
				return fmt.Sprintf("run %s's %s not found yet; looking for it until %s, while its attempt may still land", a.RunID, words(st).Noun, clock(at))
			}, look)
			if err != nil {
				return false, err
			}
			if res.Outcome != api.ReconcileFound {
				w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, fmt.Sprintf("run %s's %s was not found", a.RunID, words(st).Noun))
			}
		}
		if res.Outcome != api.ReconcileFound {
			continue
		}
		w.reportLookalikes(ctx, st, res.Output.Ignored)
		res.Output.AlreadyExisted = true
		w.setStepStatus(ctx, st, api.StepRunning, "")
		w.actionDone(ctx, st, res.Output, api.EffectFound, fmt.Sprintf("found run %s's %s under operationKey %s; nothing asked or sent", a.RunID, words(st).Noun, a.OperationKey))
		if w.Run.Status != api.RunRunning {
			w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
		}
		return true, nil
	}
	return false, nil
}

// unaskedNote says why an action runs without a person's approval: its
// gate, or the rule that lifted the agent's gate for the run.
func (w *agentRun) unaskedNote() string {
	if w.Run.PostsWithoutAsking != "" {
		return "runs without approval (" + w.Run.PostsWithoutAsking + ")"
	}
	return "runs without approval (gate: " + string(tools.NeverAsk) + ")"
}
