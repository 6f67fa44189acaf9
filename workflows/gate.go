// This file is the gate every attempt of an action passes before it is
// sent, whatever ordered it: a look that did not find the effect, an
// operator's resolve "retry", a generation continued as new with the
// attempt pending, or anything added later. They all move the step to
// running, and the running step passes gate before attemptCreate.

package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// Looks for an effect that may still land start this far apart and double,
// up to lookAgainAtMost.
const (
	lookAgainFirst  = time.Second
	lookAgainAtMost = 8 * time.Second
)

// resendNotBefore is the earliest time an action whose attempt answered in
// doubt at now may be sent again. The external system may have no
// idempotency key (GitHub has none), so a look that finds nothing proves
// nothing while that attempt's request may be in flight: from a worker
// that was killed, one cut off from Temporal, or one whose request the
// system is still working on. The attempt was scheduled before now (its
// answer came after), and Attempt's schedule-to-close ends its deadline at
// most timeout after that; margin is the tool's (api.ToolSpec.ResendMargin).
func resendNotBefore(now time.Time, timeout, margin time.Duration) time.Time {
	return now.Add(timeout + margin)
}

// inDoubt leaves the step outcome_unknown on its attempt's answer, why,
// and records when that attempt can no longer land: no attempt after it is
// sent before then.
func (w *agentRun) inDoubt(ctx workflow.Context, st *api.AgentStep, c tools.Checked, why string) {
	at := resendNotBefore(workflow.Now(ctx), w.in.ToolTimeout, c.Spec.ResendMargin())
	st.ResendNotBefore, st.RetryOrderedBy = &at, ""
	w.setStepStatus(ctx, st, api.StepOutcomeUnknown, fmt.Sprintf("%s; the attempt's request may land until %s, so it is not sent again before then", why, clock(at)))
}

// mayLand tells whether the step's last attempt may still land.
func (w *agentRun) mayLand(ctx workflow.Context, st *api.AgentStep) bool {
	return st.ResendNotBefore != nil && workflow.Now(ctx).Before(*st.ResendNotBefore)
}

// gate is the one check before an attempt is sent: it holds the attempt
// until the step's last attempt can no longer land, looking again for its
// effect meanwhile, and settles the step on an effect found. It says
// whether to send. Past the window a look decides: not created, or an
// operator's retry when the look cannot tell, sends; a look that cannot
// tell otherwise leaves the step in doubt for reconcile. The waits run on
// the steady context: a cancel does not cut them short, since the step's
// end must say whether the earlier attempt landed.
func (w *agentRun) gate(ctx workflow.Context, st *api.AgentStep, c tools.Checked) (bool, error) {
	for st.ResendNotBefore != nil {
		notBefore := *st.ResendNotBefore
		if now := workflow.Now(ctx); now.Before(notBefore) {
			if w.continueAsNewDue(ctx) {
				return false, errContinueAsNew // the new generation holds it as well
			}
			wait := lookAgainIn(now, notBefore, w.in.ToolTimeout+c.Spec.ResendMargin())
			w.setRunStatus(ctx, api.RunReconciling, w.heldLabel(st, notBefore), fmt.Sprintf("looking again in %s", api.HumanDuration(wait)))
			if err := w.sleep(w.steadyOr(ctx), wait, fmt.Sprintf("Wait %s, then look again for the %s", api.HumanDuration(wait), words(st).Noun)); err != nil {
				return false, err
			}
		}
		looked := workflow.Now(ctx)
		res := w.look(ctx, st, c)
		switch {
		case res.Outcome == api.ReconcileFound:
			w.settleFound(ctx, st, res)
			return false, nil
		case looked.Before(notBefore):
			// The earlier attempt may still land: look again.
		case res.Outcome == api.ReconcileNotCreated || st.RetryOrderedBy != "":
			st.ResendNotBefore = nil
		default:
			w.setStepStatus(ctx, st, api.StepOutcomeUnknown, "the earlier attempt can no longer land, and the look cannot tell whether it did: "+res.Reason)
			return false, nil
		}
	}
	return true, nil
}

// heldLabel is the run's label while the gate holds the step's attempt:
// "retry taken; sending at 12:04:31 UTC unless the comment appears first".
func (w *agentRun) heldLabel(st *api.AgentStep, at time.Time) string {
	why := "not found yet"
	if st.RetryOrderedBy != "" {
		why = "retry taken"
	}
	return why + "; " + words(st).Held(clock(at))
}

// clock is a time as a person reads it on a label.
func clock(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// lookAgainIn is how long after now the next look is due: the first looks
// come soon, since an effect most often lands at once, then they grow
// apart, and the last comes as the window closes. window is the whole
// window's length (the attempt's timeout and the margin).
func lookAgainIn(now, notBefore time.Time, window time.Duration) time.Duration {
	opened := notBefore.Add(-window)
	wait := min(max(now.Sub(opened), lookAgainFirst), lookAgainAtMost)
	return min(wait, notBefore.Sub(now))
}
