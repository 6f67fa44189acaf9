package workflows

// A posted review that a newer head (or a close) superseded is marked so:
// its summary line is edited (api/supersede.go). Two runs may hold such a
// review:
//   - the review of the new head, for the previous head's review that was
//     already posted when the push came (RunInput.Supersedes, named by the
//     approval server). The edit is this run's, not the older run's: a run
//     that posted has completed, and a completed workflow takes no signal,
//     while this run was started (exactly once, by its ID) for the very
//     delivery that superseded the review. It is sent before the review
//     starts.
//   - the superseded run itself, for a comment whose post was in flight
//     when the supersede came: it finishes and reconciles as usual, and the
//     run then marks it, as it completes.
// Each edit is a system-initiated side effect, gated by nothing since it
// only marks agentrun's own comment: its operation key is recorded, with an
// event, before it is sent, and it is idempotent by its final body, so a
// retry after a lost answer finds it made. A failed edit never fails the
// run: its event says so.

import (
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// supersedeEditTimeout bounds one attempt of an edit (a read and a write).
const supersedeEditTimeout = 30 * time.Second

// markSupersededReview marks the older run's posted review superseded by
// this run's head, once, before the run's loop starts; a generation
// continued as new finds it settled.
func (w *agentRun) markSupersededReview(ctx workflow.Context) {
	if r := w.in.Supersedes; r != nil && w.target.IsPullRequest() {
		w.markReview(ctx, api.SupersedeEdit{Review: *r, Head: w.in.Head, By: w.Run.ID})
	}
}

// markOwnReview marks the review this superseded run posted (its post was
// in flight when the supersede came) with the supersede's head or close.
func (w *agentRun) markOwnReview(ctx workflow.Context, c *api.Cancellation) {
	if !w.target.IsPullRequest() || c.Head == "" && !c.Closed {
		return
	}
	for _, st := range w.Steps {
		if st.ToolName != api.ToolCreateIssueComment || st.Status != api.StepSucceeded {
			continue
		}
		id, err := strconv.ParseInt(st.ExternalResourceID, 10, 64)
		if err != nil || id <= 0 {
			continue
		}
		w.markReview(ctx, api.SupersedeEdit{Review: api.SupersededReview{Run: w.Run.ID, CommentID: id}, Head: c.Head, Closed: c.Closed, By: c.TakenOverBy})
	}
}

// markReview records the edit e (unless recorded and settled before), then
// sends it and records how it ended.
func (w *agentRun) markReview(ctx workflow.Context, want api.SupersedeEdit) {
	key := api.SupersedeEditKey(w.Run.ID, want.Review.CommentID)
	var e *api.SupersedeEdit
	for _, have := range w.SupersedeEdits {
		if have.OperationKey == key {
			e = have
		}
	}
	if e != nil && e.State != api.SupersedeEditSending {
		return
	}
	if e == nil {
		want.OperationKey, want.State = key, api.SupersedeEditSending
		e = &want
		w.SupersedeEdits = append(w.SupersedeEdits, e)
	}
	r := e.Review
	why := "superseded by " + e.Head
	if e.Closed {
		why = "superseded: the pull request was closed"
	}
	if e.By != "" {
		why += "; run " + e.By + " took over"
	}
	w.emit(ctx, api.EventSupersedeEdit, "", e.State, fmt.Sprintf("marking run %s's posted review (comment %d) %s; operation key %s", r.Run, r.CommentID, why, key))
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	dctx = workflow.WithActivityOptions(dctx, workflow.ActivityOptions{
		StartToCloseTimeout: supersedeEditTimeout,
		Summary:             fmt.Sprintf("Mark run %s's review on %s superseded", r.Run, w.Run.TargetName()),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: 5,
			NonRetryableErrorTypes: []string{api.ErrTypeGitHubRejected, api.ErrTypeTargetNotAllowed, api.ErrTypeInvalidInput},
		},
	})
	req := api.MarkSupersededRequest{Target: w.target, Review: r, Head: e.Head, Closed: e.Closed, By: e.By, OperationKey: key}
	var got api.MarkSupersededResult
	if err := workflow.ExecuteActivity(dctx, api.ActivityMarkSuperseded, req).Get(dctx, &got); err != nil {
		e.State, e.Error = api.SupersedeEditFailed, errorMessage(err)
		w.emit(ctx, api.EventSupersedeEdit, "", e.State, fmt.Sprintf("run %s's review (comment %d) was not marked superseded: %s", r.Run, r.CommentID, e.Error))
		return
	}
	e.URL = got.URL
	detail := fmt.Sprintf("run %s's posted review (comment %d) now says it is %s", r.Run, r.CommentID, why)
	if e.State = api.SupersedeEditEdited; got.Found {
		e.State = api.SupersedeEditFound
		detail += " (found already edited: nothing was sent again)"
	}
	w.emit(ctx, api.EventSupersedeEdit, "", e.State, detail)
}
