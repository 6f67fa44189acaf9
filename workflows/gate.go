// This file is the gate every attempt of an action passes before it is
// sent, whatever ordered it: a look that did not find the effect, an
// operator's resolve "retry", a generation continued as new with the
// attempt pending, a cancel that settles an action in flight, or anything
// added later. They all move the step to running, and the running step
// passes gate before attemptCreate. A follow-up that repeats an earlier
// run's action in doubt waits on that action's attempt with the gate's
// one wait, holdLooking.

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
	return mayLandAfter(st, workflow.Now(ctx))
}

// mayLandAfter tells whether the step's last attempt may have landed after
// a look that started at looked, unseen by it.
func mayLandAfter(st *api.AgentStep, looked time.Time) bool {
	return st.ResendNotBefore != nil && looked.Before(*st.ResendNotBefore)
}

// gate is the one check before an attempt is sent: it holds the attempt
// until the step's last attempt can no longer land, looking again for its
// effect meanwhile (holdLooking), and settles the step on an effect found.
// It says whether to send. Past the window a look decides: not created
// sends; an operator's retry sends when the look cannot tell, unless the
// run is cancelled; a look that cannot tell otherwise leaves the step in
// doubt, for reconcile, or for the run's end when it is cancelled.
func (w *agentRun) gate(ctx workflow.Context, st *api.AgentStep, c tools.Checked) (bool, error) {
	if st.ResendNotBefore == nil {
		return true, nil
	}
	res, err := w.holdLooking(ctx, st, *st.ResendNotBefore, w.in.ToolTimeout+c.Spec.ResendMargin(),
		func(at time.Time) string { return w.heldLabel(st, at) },
		func() api.ToolReconciliation { return w.look(ctx, st, c) })
	if err != nil {
		return false, err
	}
	cancel := w.cancelling(ctx)
	switch {
	case res.Outcome == api.ReconcileFound:
		w.settleFound(ctx, st, res)
		return false, nil
	case res.Outcome == api.ReconcileNotCreated:
		// Seen not made once no request can land: the send needs nobody's
		// word, and a cancel may end the step not tried again.
		st.ResendNotBefore, st.RetryOrderedBy = nil, ""
		return true, nil
	case st.RetryOrderedBy != "" && cancel == nil:
		st.ResendNotBefore = nil // sent on the operator's word
		return true, nil
	}
	why := "the earlier attempt can no longer land, and the look cannot tell whether it did: " + res.Reason
	if cancel == nil {
		w.setStepStatus(ctx, st, api.StepOutcomeUnknown, why)
		return false, nil
	}
	// Nobody will resolve a cancelled run, and an operator's retry is not
	// sent once it is: the step stays in doubt, and the run's end says so.
	if st.RetryOrderedBy != "" {
		why += fmt.Sprintf("; the retry ordered by %s is not sent: %s", st.RetryOrderedBy, cancel.Detail())
		st.RetryOrderedBy = ""
	}
	w.setStepStatus(ctx, st, api.StepOutcomeUnknown, why)
	return false, errCancelled
}

// holdLooking is the one wait for an earlier attempt that may still land:
// until notBefore, when it can no longer, it looks for that attempt's
// effect with look, first after a wait, then further apart (lookAgainIn
// over window, the attempt's timeout and margin), the run reconciling
// under label(notBefore). It returns the first look that found the effect,
// or the first that started at or after notBefore. The waits run on the
// steady context: a cancel does not cut them short, since the step's end
// must say whether the earlier attempt landed; and a cancelled run does
// not continue as new meanwhile, since its next generation would end at
// once.
func (w *agentRun) holdLooking(ctx workflow.Context, st *api.AgentStep, notBefore time.Time, window time.Duration,
	label func(time.Time) string, look func() api.ToolReconciliation) (api.ToolReconciliation, error) {
	for {
		if now := workflow.Now(ctx); now.Before(notBefore) {
			if w.cancelling(ctx) == nil && w.continueAsNewDue(ctx) {
				return api.ToolReconciliation{}, errContinueAsNew // the new generation holds it as well
			}
			wait := lookAgainIn(now, notBefore, window)
			w.setRunStatus(ctx, api.RunReconciling, label(notBefore), fmt.Sprintf("looking again in %s", api.HumanDuration(wait)))
			if err := w.sleep(w.steadyOr(ctx), wait, fmt.Sprintf("Wait %s, then look again for the %s", api.HumanDuration(wait), words(st).Noun)); err != nil {
				return api.ToolReconciliation{}, err
			}
		}
		looked := workflow.Now(ctx)
		res := look()
		if res.Outcome == api.ReconcileFound || !looked.Before(notBefore) {
			return res, nil
		}
	}
}

// heldLabel is the run's label while the gate holds the step's attempt:
// "retry taken; sending at 12:04:31 UTC unless the comment appears first",
// or, in a cancelled run, which sends nothing more, until when it looks.
func (w *agentRun) heldLabel(st *api.AgentStep, at time.Time) string {
	if w.Cancel != nil {
		return fmt.Sprintf("cancelled; looking for the %s until %s, while its attempt may still land", words(st).Noun, clock(at))
	}
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
