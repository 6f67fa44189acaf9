package workflows

// A review run whose pull request moved on is superseded: the approval
// server, on a verified pull_request delivery, signals the review of the
// old head. The run stops as a cancelled one does (an action in flight
// finishes and reconciles, on the steady context), its waiting actions
// expire with "superseded by <sha>" or "pull request closed", so nothing
// stale is posted, and it completes naming the run that took over.

import (
	"encoding/json"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

func (w *agentRun) onSupersede(ctx workflow.Context, raw json.RawMessage) {
	var sig api.SupersedeSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		w.ignore(ctx, "", "malformed supersede signal: "+err.Error())
		return
	}
	if err := sig.Validate(); err != nil {
		w.ignore(ctx, "", "supersede not applied: "+err.Error())
		return
	}
	switch {
	case w.Cancel != nil && w.Cancel.Superseded:
		w.ignore(ctx, "", "duplicate: the run was already "+w.Cancel.Reason)
		return
	case w.Cancel != nil:
		w.ignore(ctx, "", "supersede arrived after the run was cancelled by "+w.Cancel.By)
		return
	case w.Run.Status.IsTerminal():
		w.ignore(ctx, "", "supersede arrived after the run was "+string(w.Run.Status))
		return
	}
	w.Cancel = &api.Cancellation{By: api.SupersededBy, Reason: sig.Reason(), At: workflow.Now(ctx), Superseded: true, TakenOverBy: sig.By,
		Head: sig.Head, Closed: sig.Closed}
	msg := w.Cancel.Reason
	if sig.By != "" {
		msg += "; run " + sig.By + " took over"
	}
	w.emit(ctx, api.EventCancelAccepted, "", string(w.Run.Status), msg+"; waiting actions expire, an action in flight finishes, and the run completes")
	if w.stop != nil {
		w.stop()
	}
}

// endSuperseded settles a superseded run: what waits expires with the
// supersede's reason and the run completes, saying who took over.
func (w *agentRun) endSuperseded(ctx workflow.Context, c *api.Cancellation) (api.RunResult, error) {
	dctx := w.steady
	if dctx == nil {
		dctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	w.cancelOpenWork(dctx, c.Detail())
	w.markOwnReview(dctx, c)
	w.AwaitingResolve = ""
	detail := c.Detail()
	if c.TakenOverBy != "" {
		detail += "; run " + c.TakenOverBy + " took over"
	}
	label := api.LabelSuperseded
	for _, st := range w.Steps {
		if st.OperationKey != "" && st.Status == api.StepSucceeded {
			label = api.LabelDone
		}
		if st.Status == api.StepOutcomeUnknown {
			detail += "; " + st.ID + "'s outcome is unknown: the tool could not tell whether it was " + words(st).Past
		}
	}
	if w.Run.Status != api.RunRunning {
		// waiting_for_user (or reconciling) reaches completed through running.
		w.setRunStatus(dctx, api.RunRunning, label, detail)
	}
	w.setRunStatus(dctx, api.RunCompleted, label, detail)
	return api.RunResult{Status: api.RunCompleted, Answer: detail, Outcome: resultOutcome(&w.Checkpoint)}, nil
}
