package workflows

// The review of a new head marks the older run's posted review superseded
// (RunInput.Supersedes, api/supersede.go). The edit is this run's, not the
// older run's: a run that posted has completed, and a completed workflow
// takes no signal, while this run was started (exactly once, by its ID)
// for the very delivery that superseded the review. It is a
// system-initiated side effect, gated by nothing since it only marks
// agentrun's own comment: its operation key is recorded, with an event,
// before the edit is sent, and the edit is idempotent by its final body,
// so a retry after a lost answer finds it made. It never blocks the
// review, and a failed edit never fails the run: its event says so.

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// supersedeEditTimeout bounds one attempt of the edit (a read and a write).
const supersedeEditTimeout = 30 * time.Second

// markSupersededReview sends the edit of the older review, once, before
// the run's loop starts; a generation continued as new finds it settled.
func (w *agentRun) markSupersededReview(ctx workflow.Context) {
	r := w.in.Supersedes
	if r == nil || !w.target.IsPullRequest() {
		return
	}
	if e := w.SupersedeEdit; e != nil && e.State != api.SupersedeEditSending {
		return
	}
	if w.SupersedeEdit == nil {
		w.SupersedeEdit = &api.SupersedeEdit{OperationKey: api.SupersedeEditKey(w.Run.ID), Review: *r, State: api.SupersedeEditSending}
	}
	e := w.SupersedeEdit
	w.emit(ctx, api.EventSupersedeEdit, "", e.State, fmt.Sprintf("marking run %s's posted review (comment %d) superseded by %s; run %s took over; operation key %s",
		r.Run, r.CommentID, w.in.Head, w.Run.ID, e.OperationKey))
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	dctx = workflow.WithActivityOptions(dctx, workflow.ActivityOptions{
		StartToCloseTimeout: supersedeEditTimeout,
		Summary:             fmt.Sprintf("Mark run %s's review on %s superseded", r.Run, w.Run.TargetName()),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{api.ErrTypeGitHubRejected, api.ErrTypeTargetNotAllowed, api.ErrTypeInvalidInput},
		},
	})
	req := api.MarkSupersededRequest{Target: w.target, Review: *r, Head: w.in.Head, By: w.Run.ID, OperationKey: e.OperationKey}
	var got api.MarkSupersededResult
	if err := workflow.ExecuteActivity(dctx, api.ActivityMarkSuperseded, req).Get(dctx, &got); err != nil {
		e.State, e.Error = api.SupersedeEditFailed, errorMessage(err)
		w.emit(ctx, api.EventSupersedeEdit, "", e.State, fmt.Sprintf("run %s's review (comment %d) was not marked superseded: %s", r.Run, r.CommentID, e.Error))
		return
	}
	e.URL = got.URL
	detail := fmt.Sprintf("run %s's posted review (comment %d) now says it is superseded by %s; run %s took over", r.Run, r.CommentID, w.in.Head, w.Run.ID)
	if e.State = api.SupersedeEditEdited; got.Found {
		e.State = api.SupersedeEditFound
		detail += " (found already edited: nothing was sent again)"
	}
	w.emit(ctx, api.EventSupersedeEdit, "", e.State, detail)
}
