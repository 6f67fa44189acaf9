package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// resendMargin is how long past an attempt's deadline a request of it may
// still land: GitHub finishes a request it received even when the client
// has gone, and the worker's clock, which enforces the deadline, may run
// behind the server's.
const resendMargin = 5 * time.Second

// Looks for an effect that may still land start this far apart and double,
// up to lookAgainAtMost.
const (
	lookAgainFirst  = time.Second
	lookAgainAtMost = 8 * time.Second
)

// resendNotBefore is the earliest time an action whose effect was not found
// at now may be sent again. GitHub has no idempotency key, so a look that
// finds nothing proves nothing while the earlier attempt's request may be
// in flight: from a worker that was killed, one cut off from Temporal, or
// one whose request GitHub is still working on. That attempt was scheduled
// before now (the answer of the attempt came first), and attemptActivityOptions'
// schedule-to-close ends its deadline at most timeout after that.
func resendNotBefore(now time.Time, timeout time.Duration) time.Time {
	return now.Add(timeout + resendMargin)
}

// notCreated answers a look that did not find the step's effect: once the
// earlier attempt can no longer land, the same operationKey goes round
// again; until then the run waits and looks again, and a look that finds
// it settles the step at once.
func (w *agentRun) notCreated(ctx workflow.Context, st *api.AgentStep) error {
	now := workflow.Now(ctx)
	if st.ResendNotBefore == nil {
		at := resendNotBefore(now, w.in.ToolTimeout)
		st.ResendNotBefore = &at
		w.stepNote(ctx, st, fmt.Sprintf("not found; the attempt's request may land until %s, so it is not sent again before then",
			at.UTC().Format(time.RFC3339)))
	}
	if !now.Before(*st.ResendNotBefore) {
		return w.retryCreate(ctx, st, "not created")
	}
	wait := lookAgainIn(now, *st.ResendNotBefore, w.in.ToolTimeout)
	w.setRunStatus(ctx, api.RunReconciling, words(st).Checking(), fmt.Sprintf("not found yet; looking again in %s", wait))
	// A cancel does not cut the wait short: the step's end must say
	// whether the earlier attempt landed, and that is known only after it.
	return w.sleep(w.steadyOr(ctx), wait, fmt.Sprintf("Wait %s, then look again for the %s", api.HumanDuration(wait), words(st).Noun))
}

// lookAgainIn is how long after now the next look is due: the first looks
// come soon, since an effect most often lands at once, then they grow
// apart, and the last comes as the window closes.
func lookAgainIn(now, notBefore time.Time, timeout time.Duration) time.Duration {
	firstLook := notBefore.Add(-timeout - resendMargin)
	wait := min(max(now.Sub(firstLook), lookAgainFirst), lookAgainAtMost)
	return min(wait, notBefore.Sub(now))
}
