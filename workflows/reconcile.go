package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/modelcall"
	"github.com/agentrun/agentrun/internal/redact"
)

// maxCreateAttempts bounds how often one operationKey is tried.
const maxCreateAttempts = 10

// runGatedTool drives a side-effecting tool step to a terminal status:
// approval, then the call under its operationKey, reconciling whenever the
// outcome is unknown. The step status is the state machine, so the same code
// resumes a step carried across a continue-as-new.
func (w *agentRun) runGatedTool(ctx workflow.Context, st *api.AgentStep, args modelcall.ToolArgs) (string, error) {
	if st.OperationKey == "" {
		st.OperationKey = fmt.Sprintf("%s:%d", w.Run.ID, st.Sequence)
		st.SafeInput = redact.JSON(map[string]any{"target": fmt.Sprintf("%s#%d", w.in.Repo, w.target.PullNumber), "body": args.Body})
		w.stepNote(ctx, st, "operationKey "+st.OperationKey)
	}
	for {
		var err error
		switch st.Status {
		case api.StepPending:
			w.requestApproval(ctx, st, args)
		case api.StepWaitingForApproval:
			var content string
			if content, err = w.awaitDecision(ctx, st); err == nil && content != "" {
				return content, nil
			}
		case api.StepRunning:
			err = w.attemptCreate(ctx, st, args)
		case api.StepOutcomeUnknown:
			err = w.reconcile(ctx, st)
		case api.StepSucceeded:
			return string(st.SafeOutput), nil
		default:
			return "failed: " + st.Error, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// attemptCreate makes one attempt. Temporal never retries it blindly: any
// outcome other than success or a proven refusal leaves the step
// outcome_unknown for reconcile.
func (w *agentRun) attemptCreate(ctx workflow.Context, st *api.AgentStep, args modelcall.ToolArgs) error {
	pa := w.ActionForStep(st.ID)
	if pa == nil || pa.State != api.ActionApproved || pa.ArgsHash != api.ArgsHash(w.target, args.Body) {
		w.setStepStatus(ctx, st, api.StepFailed, "refused: the action to run is not the one approved")
		return nil
	}
	// After approval the run is already running and says it is posting; a
	// retry comes from reconciling and must say so again.
	if w.Run.Status != api.RunRunning {
		w.setRunStatus(ctx, api.RunRunning, api.LabelPosting, fmt.Sprintf("attempt %d", st.Attempt))
	}
	actx := workflow.WithActivityOptions(ctx, w.createCommentOptions(st))
	in := api.CreateCommentInput{Target: w.target, Body: args.Body, OperationKey: st.OperationKey}
	var res api.CommentResult
	err := workflow.ExecuteActivity(actx, acts.CreateIssueComment, in).Get(ctx, &res)
	if err == nil {
		w.reportLookalikes(ctx, st, res.Ignored)
		w.commentFound(ctx, st, res, "")
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == api.ErrTypeGitHubRejected {
		w.setStepStatus(ctx, st, api.StepFailed, appErr.Message())
		return nil
	}
	if errors.As(err, &appErr) && appErr.Type() == api.ErrTypeRateLimited {
		var d api.RateLimitDetails
		_ = appErr.Details(&d)
		wait := time.Duration(max(d.RetryAfterSeconds, 1)) * time.Second
		w.setStepStatus(ctx, st, api.StepOutcomeUnknown, fmt.Sprintf("%s; waiting %s", appErr.Message(), wait))
		w.setRunStatus(ctx, api.RunReconciling, api.LabelRateLimited, fmt.Sprintf("retry after %s", wait))
		return w.sleep(ctx, wait, fmt.Sprintf("Wait %s for GitHub's rate limit before posting again", api.HumanDuration(wait)))
	}
	w.setStepStatus(ctx, st, api.StepOutcomeUnknown, errorMessage(err))
	return nil
}

// commentFound settles the step on the comment that carries its marker.
func (w *agentRun) commentFound(ctx workflow.Context, st *api.AgentStep, res api.CommentResult, detail string) {
	st.ExternalResourceID = strconv.FormatInt(res.CommentID, 10)
	out, _ := json.Marshal(res)
	st.SafeOutput = out
	w.setStepStatus(ctx, st, api.StepSucceeded, detail)
}

// reconcile asks GitHub whether the step's operationKey already has a comment.
func (w *agentRun) reconcile(ctx workflow.Context, st *api.AgentStep) error {
	w.setRunStatus(ctx, api.RunReconciling, api.LabelReconciling, "")
	actx := workflow.WithActivityOptions(ctx, w.findCommentOptions(st))
	var res api.FindCommentResult
	in := api.FindCommentInput{Target: w.target, OperationKey: st.OperationKey, Body: w.approvedBody(st)}
	if err := workflow.ExecuteActivity(actx, acts.FindCommentByOperationKey, in).Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		res = api.FindCommentResult{Outcome: api.ReconcileCannotTell, Reason: "lookup failed: " + errorMessage(err)}
	}
	w.reportLookalikes(ctx, st, res.Ignored)
	countReconciliation(ctx, res.Outcome)
	switch res.Outcome {
	case api.ReconcileFound:
		w.commentFound(ctx, st, api.CommentResult{CommentID: res.CommentID, HTMLURL: res.HTMLURL, AlreadyExisted: true},
			"found the comment already posted")
		w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
		return nil
	case api.ReconcileNotCreated:
		return w.retryCreate(ctx, st, "not created")
	default:
		return w.awaitResolve(ctx, st, res.Reason)
	}
}

// sleep is workflow.Sleep with a summary the Temporal UI shows on the timer.
// It starts the same timer, so histories from before the summary replay.
func (w *agentRun) sleep(ctx workflow.Context, d time.Duration, summary string) error {
	return workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: summary}).Get(ctx, nil)
}

// approvedBody is the text the person approved for a gated step: only a
// comment with exactly this body (and the step's marker) proves the step.
// attemptCreate posts nothing else, since the approval binds its hash.
func (w *agentRun) approvedBody(st *api.AgentStep) string {
	if pa := w.ActionForStep(st.ID); pa != nil {
		return pa.Preview
	}
	return ""
}

// maxLookalikeFieldBytes bounds what one look-alike writes into the events.
const maxLookalikeFieldBytes = 200

// reportLookalikes records each comment that carried the step's marker but
// was not taken as proof, so that someone forging a marker shows in the run.
func (w *agentRun) reportLookalikes(ctx workflow.Context, st *api.AgentStep, ignored []api.IgnoredComment) {
	for _, c := range ignored {
		w.emit(ctx, api.EventLookalikeIgnored, st.ID, string(st.Status), fmt.Sprintf("ignored comment %d by %s: %s",
			c.CommentID, api.TruncateUTF8(c.Author, maxLookalikeFieldBytes), api.TruncateUTF8(c.Why, maxLookalikeFieldBytes)))
	}
}

// retryCreate sends the same step, with the same operationKey, round again.
func (w *agentRun) retryCreate(ctx workflow.Context, st *api.AgentStep, why string) error {
	if st.Attempt >= maxCreateAttempts {
		w.setStepStatus(ctx, st, api.StepFailed, fmt.Sprintf("%s after %d attempts; giving up", why, st.Attempt))
		w.setRunStatus(ctx, api.RunRunning, api.LabelThinking, "")
		return nil
	}
	if st.Attempt > 1 {
		backoff := min(time.Duration(1<<(st.Attempt-1))*time.Second, time.Minute)
		w.setRunStatus(ctx, api.RunReconciling, api.LabelBackoff, fmt.Sprintf("waiting %s", backoff))
		if err := w.sleep(ctx, backoff, fmt.Sprintf("Wait %s before posting attempt %d", api.HumanDuration(backoff), st.Attempt+1)); err != nil {
			return err
		}
	}
	st.Attempt++
	w.setStepStatus(ctx, st, api.StepRunning, fmt.Sprintf("%s; attempt %d with the same operationKey", why, st.Attempt))
	return nil
}

// awaitResolve parks the run until an operator says what happened.
func (w *agentRun) awaitResolve(ctx workflow.Context, st *api.AgentStep, reason string) error {
	w.AwaitingResolve = st.ID
	w.resolution = nil
	w.setRunStatus(ctx, api.RunReconciling, api.LabelCannotTell, reason)
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
		id, _ := strconv.ParseInt(r.ExternalResourceID, 10, 64)
		w.commentFound(ctx, st, api.CommentResult{CommentID: id, AlreadyExisted: true}, "marked succeeded by "+r.By)
		st.ExternalResourceID = r.ExternalResourceID
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
	switch {
	case !api.ResolveApplies(api.RunSnapshot{AwaitingResolve: w.AwaitingResolve}, sig.StepID):
		w.ignore(ctx, sig.StepID, fmt.Sprintf("step %q is not waiting for an operator", sig.StepID))
	case sig.Decision != api.ResolveRetry && sig.Decision != api.ResolveMarkSucceeded && sig.Decision != api.ResolveAbandon:
		w.ignore(ctx, sig.StepID, fmt.Sprintf("unknown resolve decision %q", sig.Decision))
	case sig.By == "":
		w.ignore(ctx, sig.StepID, "resolve without who decided (by)")
	case sig.Decision == api.ResolveMarkSucceeded && sig.ExternalResourceID == "":
		w.ignore(ctx, sig.StepID, "mark_succeeded needs the externalResourceId of the comment")
	case w.resolution != nil:
		w.ignore(ctx, sig.StepID, "duplicate: the step was already resolved by "+w.resolution.By)
	default:
		w.resolution = &sig
		w.emit(ctx, api.EventStepStatus, sig.StepID, string(api.StepOutcomeUnknown), "resolve "+sig.Decision+" by "+sig.By)
	}
}
