package workflows

// A run is stopped by a person's cancel signal or by Temporal's own
// cancellation request, and neither abandons an action it started: the
// loop's waits are interrupted (stop), but an attempt in flight and its
// reconcile run on a disconnected context (steady), and the run ends
// cancelled only once each action's outcome is known, or reconciliation
// said it cannot tell.

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// errCancelled ends the loop on an accepted cancel.
var errCancelled = errors.New("run cancelled")

// stoppable keeps Temporal's context as root, makes the steady context an
// action's attempt and reconcile run on, and returns the context of the
// loop, which an accepted cancel interrupts.
func (w *agentRun) stoppable(root workflow.Context) workflow.Context {
	w.root = root
	w.steady, _ = workflow.NewDisconnectedContext(root)
	ctx, stop := workflow.WithCancel(root)
	w.stop = stop
	if w.Cancel != nil {
		stop() // carried across a continue-as-new
	}
	return ctx
}

// steadyOr is the steady context, or ctx in a generation the loop has not
// started (tests that drive a step alone).
func (w *agentRun) steadyOr(ctx workflow.Context) workflow.Context {
	if w.steady == nil {
		return ctx
	}
	return w.steady
}

// cancelling is the run's accepted cancellation, or nil. A Temporal
// cancellation request counts as one, recorded when first seen.
func (w *agentRun) cancelling(ctx workflow.Context) *api.Cancellation {
	if w.Cancel == nil && w.root != nil && w.root.Err() != nil {
		w.acceptCancel(ctx, api.CancelledByTemporal, "temporal workflow cancel")
	}
	return w.Cancel
}

func (w *agentRun) acceptCancel(ctx workflow.Context, by, reason string) {
	w.Cancel = &api.Cancellation{By: by, Reason: reason, At: workflow.Now(ctx)}
	w.emit(ctx, api.EventCancelAccepted, "", string(w.Run.Status), "cancel accepted: "+w.Cancel.Detail()+"; the run stops once no action it started is in doubt")
	if w.stop != nil {
		w.stop()
	}
}

// onCancel applies the run's rule for who may stop it: the requester or an
// approver at once; on a run that names no approvers, a writer of its
// repository, as GitHub says. The check blocks only this signal's own
// handler, never the loop.
func (w *agentRun) onCancel(ctx workflow.Context, raw json.RawMessage) {
	var sig api.CancelSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		w.ignore(ctx, "", "malformed cancel signal: "+err.Error())
		return
	}
	who := strings.TrimSpace(sig.By)
	key := api.RequestKey(sig.Channel, who, sig.RequestID)
	if key != "" && slices.Contains(w.CancelRequestKeys, key) {
		w.ignore(ctx, "", fmt.Sprintf("repeated cancel request %q", api.TruncateUTF8(sig.RequestID, maxFieldBytes)))
		return
	}
	if key != "" && len(w.CancelRequestKeys) < maxRequestIDs {
		w.CancelRequestKeys = append(w.CancelRequestKeys, key)
	}
	why, needsWriter := refuseCancel(sig, w.Run, w.Cancel)
	if why == "" && needsWriter {
		why = w.checkWritePermission(ctx, who, "cancel", "cancelling", fmt.Sprintf("cancel by %s not applied: ", who),
			map[string]string{"cancel": "true", "login": who, "repo": w.in.Repo})
	}
	if why == "" && w.Cancel != nil {
		why = "duplicate: the run was already cancelled by " + w.Cancel.By
	}
	if why != "" {
		w.ignore(ctx, "", why)
		return
	}
	w.acceptCancel(ctx, who, strings.TrimSpace(sig.Reason))
}

// refuseCancel says why a cancel cannot apply to run, or "": needsWriter
// when it can only by its sender's write permission (the run names no
// approvers and the sender did not start it). cancelled is the run's
// accepted cancellation, if any.
func refuseCancel(sig api.CancelSignal, run api.Run, cancelled *api.Cancellation) (why string, needsWriter bool) {
	who, reason := strings.TrimSpace(sig.By), strings.TrimSpace(sig.Reason)
	shown := api.TruncateUTF8(who, maxFieldBytes)
	switch {
	case who == "":
		return "cancel without who sent it (by)", false
	case reason == "":
		return fmt.Sprintf("cancel by %s without a reason; a cancel must say why", shown), false
	case len(reason) > api.MaxCancelReasonBytes || !utf8.ValidString(reason):
		return fmt.Sprintf("cancel by %s: the reason must be valid UTF-8 of at most %d bytes", shown, api.MaxCancelReasonBytes), false
	case cancelled != nil:
		return "duplicate: the run was already cancelled by " + cancelled.By, false
	case run.Status.IsTerminal():
		return fmt.Sprintf("cancel by %s arrived after the run was %s", shown, run.Status), false
	}
	return api.MayCancel(run, who)
}

// checkWritePermission asks the target's permission source whether who
// may write, as a permission_check step for what ("cancel", "follow-up")
// with input as its shown input; it returns why not, or "". doing is what
// needs write ("cancelling"); unchecked starts the answer when the check
// could not run.
func (w *agentRun) checkWritePermission(ctx workflow.Context, who, what, doing, unchecked string, input map[string]string) string {
	st := w.newStep(ctx, api.StepToolCall, "", api.ToolCheckRepoPermission, redact.JSON(input))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	opts := permissionCheckOptions(who, w.in.Repo, what)
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: opts.StartToCloseTimeout, RetryPolicy: opts.RetryPolicy, Summary: opts.Summary,
	})
	in := api.RepoPermissionInput{Owner: w.target.Owner, Repo: w.target.Repo, Login: who}
	var res api.RepoPermission
	err := workflow.ExecuteLocalActivity(lctx, api.ActivityCheckRepoPermission, in).Get(ctx, &res)
	// A signal's check runs beside the loop: the run may have ended while
	// it ran (a supersede, Temporal's cancel) and closed its open steps,
	// this one too (cancelOpenWork). The answer still holds; the step
	// stays as the run closed it.
	closed := st.Status.IsTerminal()
	if err != nil {
		if !closed {
			w.setStepStatus(ctx, st, api.StepFailed, errorMessage(err))
		}
		return fmt.Sprintf("%s%s's permission on %s could not be checked%s", unchecked, who, w.in.Repo, uncheckedReason(err))
	}
	if !closed {
		st.SafeOutput = redact.JSON(res)
		w.setStepStatus(ctx, st, api.StepSucceeded, who+" has "+res.Permission+" permission")
	}
	return api.RefuseWriter(who, res.Permission, w.in.Repo, doing)
}

// endCancelled settles a cancelled run on the steady context: what still
// waits expires, and the run says which action, if any, stays in doubt.
func (w *agentRun) endCancelled(ctx workflow.Context) (api.RunResult, error) {
	c := w.cancelling(ctx)
	if c == nil {
		c = &api.Cancellation{By: api.CancelledByTemporal, Reason: "the workflow was cancelled"}
	}
	if c.Superseded && (w.root == nil || w.root.Err() == nil) {
		return w.endSuperseded(ctx, c)
	}
	dctx := w.steady
	if dctx == nil {
		dctx, _ = workflow.NewDisconnectedContext(ctx)
	}
	w.cancelOpenWork(dctx, c.Detail())
	w.AwaitingResolve = ""
	detail := c.Detail()
	for _, st := range w.Steps {
		if st.Status == api.StepOutcomeUnknown {
			detail += fmt.Sprintf("; %s's outcome is unknown: the tool could not tell whether it was %s", st.ID, words(st).Past)
		}
	}
	w.setRunStatus(dctx, api.RunCancelled, api.LabelCancelled, detail)
	res := api.RunResult{Status: api.RunCancelled, Error: detail, Outcome: resultOutcome(&w.Checkpoint)}
	if w.root != nil && w.root.Err() != nil {
		return res, temporal.NewCanceledError(detail)
	}
	return res, nil
}

// cancelOpenWork closes what a cancel left open: waiting actions expire
// with why (an expired approval is a no), unstarted steps are skipped. An
// action's step is never left running: the loop waited for its attempt.
func (w *agentRun) cancelOpenWork(ctx workflow.Context, why string) {
	w.dropQueuedDecisions(ctx, "the run was cancelled")
	for _, pa := range w.Actions {
		if pa.State == api.ActionWaiting {
			w.setActionState(ctx, pa, api.ActionExpired, "", why)
		}
	}
	for _, st := range w.Steps {
		switch st.Status {
		case api.StepPending:
			w.setStepStatus(ctx, st, api.StepSkipped, why)
		case api.StepWaitingForApproval:
			w.setStepStatus(ctx, st, api.StepExpired, why)
		case api.StepRunning:
			if st.OperationKey != "" {
				w.setStepStatus(ctx, st, api.StepOutcomeUnknown, "run cancelled while the action was in flight")
			} else {
				w.setStepStatus(ctx, st, api.StepFailed, why)
			}
		}
	}
}
