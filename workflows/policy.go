package workflows

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// The approval policy, enforced here for every channel (page, CLI, API,
// webhook, a raw signal): the run's approvers when it names some; otherwise
// anyone with write permission on the repository, as GitHub says in a
// CheckRepoPermission activity. The approval server may refuse early, but
// only this decides.
//
// A signal handler must not block, so a decision that needs the check is
// queued (w.queued) and the loop, waiting in awaitDecision, checks the queue
// oldest first: a later decision is judged on the state the earlier ones
// left. The expiry timer races each check, and wins at the deadline.

// maxQueuedDecisions bounds the decisions waiting for a permission check, so
// that a flood of signals cannot make the run check permissions forever.
const maxQueuedDecisions = 100

// needsPermissionCheck reports whether a decision must wait for its decider's
// permission: on a run that names no approvers.
func (w *agentRun) needsPermissionCheck() bool {
	return len(w.Run.Approvers) == 0
}

// queueDecision keeps a decision for the loop's permission check.
func (w *agentRun) queueDecision(ctx workflow.Context, pa *api.PendingAction, sig api.ApprovalSignal) {
	if len(w.QueuedDecisions) >= maxQueuedDecisions {
		w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s: %d decisions already wait for a permission check",
			sig.Decision, strings.TrimSpace(sig.Approver), len(w.QueuedDecisions)))
		return
	}
	w.QueuedDecisions = append(w.QueuedDecisions, sig)
}

// checkNextDecision takes the oldest queued decision, checks its decider's
// permission unless the action's state already refuses it, and applies it or
// records why not. It returns an error only when the run is cancelled.
func (w *agentRun) checkNextDecision(ctx workflow.Context, awaited *api.PendingAction, timer workflow.Future) error {
	sig := w.QueuedDecisions[0]
	w.QueuedDecisions = w.QueuedDecisions[1:]
	if len(sig.Batch) > 0 {
		return w.checkQueuedBatch(ctx, awaited, timer, sig)
	}
	pa := w.ActionByID(sig.ActionID)
	if pa == nil {
		w.ignore(ctx, "", fmt.Sprintf("approval for unknown action %q", sig.ActionID))
		return nil
	}
	if pa != awaited {
		// The timer is the awaited action's; this one's deadline is read
		// by refuseDecision, before and after the check.
		timer = nil
	}
	// An earlier decision may have settled the action since this one came.
	if why := w.refuseDecision(ctx, pa, sig); why != "" {
		w.ignore(ctx, pa.StepID, why)
		return nil
	}
	who := strings.TrimSpace(sig.Approver)
	permission, expired, unchecked, err := w.checkPermission(ctx, pa, who, timer)
	switch {
	case err != nil:
		// Back at the head of the queue, so that the end of the run
		// records it as never applied.
		w.QueuedDecisions = append([]api.ApprovalSignal{sig}, w.QueuedDecisions...)
		return err
	case expired:
		w.setActionState(ctx, pa, api.ActionExpired, "", "no decision before "+pa.ExpiresAt.UTC().Format(time.RFC3339))
		w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s was not confirmed before the action expired", sig.Decision, who))
	case permission == "":
		w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s not applied: %s's permission on %s could not be checked%s",
			sig.Decision, who, who, w.in.Repo, unchecked))
	case !api.CanApprove(permission):
		w.ignore(ctx, pa.StepID, api.RefuseWriter(who, permission, w.in.Repo, "deciding"))
	default:
		// The check took time: the deadline and the state are read again.
		if why := w.refuseDecision(ctx, pa, sig); why != "" {
			w.ignore(ctx, pa.StepID, why)
			return nil
		}
		w.applyDecision(ctx, pa, sig)
	}
	return nil
}

// checkQueuedBatch is checkNextDecision for a batch: its parts are judged
// before and after one check of its decider, and apply all or none.
func (w *agentRun) checkQueuedBatch(ctx workflow.Context, awaited *api.PendingAction, timer workflow.Future, sig api.ApprovalSignal) error {
	refuse := func() ([]api.ApprovalSignal, string) {
		parts, why := splitBatch(sig, w.agent.BatchApproval, w.agent.Name, w.ActionByID)
		if why == "" {
			why = w.rules().RefuseBatch(sig, parts, w.ActionByID, workflow.Now(ctx))
		}
		return parts, why
	}
	parts, why := refuse()
	if why != "" {
		w.ignore(ctx, "", why)
		return nil
	}
	if !slices.ContainsFunc(parts, func(p api.ApprovalSignal) bool { return p.ActionID == awaited.ID }) {
		timer = nil
	}
	who := strings.TrimSpace(sig.Approver)
	permission, expired, unchecked, err := w.checkPermission(ctx, w.ActionByID(sig.ActionID), who, timer)
	switch {
	case err != nil:
		w.QueuedDecisions = append([]api.ApprovalSignal{sig}, w.QueuedDecisions...)
		return err
	case expired:
		w.setActionState(ctx, awaited, api.ActionExpired, "", "no decision before "+awaited.ExpiresAt.UTC().Format(time.RFC3339))
		w.ignore(ctx, "", fmt.Sprintf("batch %s by %s was not confirmed before action %s expired", sig.Decision, who, awaited.ID))
	case permission == "":
		w.ignore(ctx, "", fmt.Sprintf("batch %s by %s not applied: %s's permission on %s could not be checked%s",
			sig.Decision, who, who, w.in.Repo, unchecked))
	case !api.CanApprove(permission):
		w.ignore(ctx, "", api.RefuseWriter(who, permission, w.in.Repo, "deciding"))
	default:
		// The check took time: every part is judged again.
		if parts, why = refuse(); why != "" {
			w.ignore(ctx, "", why)
			return nil
		}
		w.applyBatch(ctx, parts)
	}
	return nil
}

// batchStillWaiting reports whether every action a queued batch names still
// waits, so that the batch stays queued for the wait of the next one.
func (w *agentRun) batchStillWaiting(sig api.ApprovalSignal) bool {
	for _, ref := range append([]api.ActionRef{{ActionID: sig.ActionID}}, sig.Batch...) {
		if pa := w.ActionByID(ref.ActionID); pa == nil || pa.State != api.ActionWaiting {
			return false
		}
	}
	return true
}

// checkPermission runs the CheckRepoPermission activity as a
// permission_check step, racing the action's expiry timer. It returns the
// permission, or "" and why not (unchecked) when GitHub could not tell;
// expired when the timer fired first (the check is then cancelled).
func (w *agentRun) checkPermission(ctx workflow.Context, pa *api.PendingAction, who string, timer workflow.Future) (permission string, expired bool, unchecked string, err error) {
	st := w.newStep(ctx, api.StepToolCall, "", api.ToolCheckRepoPermission, redact.JSON(map[string]string{
		"actionId": pa.ID, "login": who, "repo": w.in.Repo,
	}))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("Checking whether %s may approve a comment on %s", who, pa.Target))
	checkCtx, cancel := workflow.WithCancel(ctx)
	defer cancel()
	in := api.RepoPermissionInput{Owner: w.target.Owner, Repo: w.target.Repo, Login: who}
	var res api.RepoPermission
	sel := workflow.NewSelector(ctx)
	sel.AddFuture(w.startPermissionCheck(checkCtx, pa, who, in), func(f workflow.Future) { err = f.Get(ctx, &res) })
	if timer != nil {
		// A cancelled run cancels the timer too; that is no expiry.
		sel.AddFuture(timer, func(f workflow.Future) { expired = f.Get(ctx, nil) == nil })
	}
	sel.Select(ctx)
	switch {
	case ctx.Err() != nil:
		return "", false, "", ctx.Err()
	case expired:
		w.setStepStatus(ctx, st, api.StepFailed, "the action expired before the check finished")
		return "", true, "", nil
	case err != nil:
		w.setStepStatus(ctx, st, api.StepFailed, errorMessage(err))
		return "", false, uncheckedReason(err), nil
	}
	st.SafeOutput = redact.JSON(res)
	w.setStepStatus(ctx, st, api.StepSucceeded, who+" has "+res.Permission+" permission")
	return res.Permission, false, "", nil
}

// uncheckedReason is what a decider is told about a check that could not
// run: a worker without a permission source says so and how to start a run
// that works there; any other failure's text stays in the step (it may name
// internal addresses), and the decider reads only that it failed.
func uncheckedReason(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.Type() == api.ErrTypeNoPermissionSource {
		return ": " + appErr.Message()
	}
	return ""
}

// startPermissionCheck starts CheckRepoPermission as a local activity: it
// only reads GitHub, and so runs inside the workflow task that received the
// decision, without a round trip through the server.
func (w *agentRun) startPermissionCheck(ctx workflow.Context, pa *api.PendingAction, who string, in api.RepoPermissionInput) workflow.Future {
	opts := permissionCheckOptions(who, w.in.Repo, pa.ID)
	// By name: a local activity given a method value would run it on the
	// workflow's nil *Activities, not the worker's registered one.
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: opts.StartToCloseTimeout, RetryPolicy: opts.RetryPolicy, Summary: opts.Summary,
	})
	return workflow.ExecuteLocalActivity(lctx, api.ActivityCheckRepoPermission, in)
}

// dropQueuedDecisions records why each decision still queued was never
// applied: the action it named was settled first, or (why) the run ended.
func (w *agentRun) dropQueuedDecisions(ctx workflow.Context, why string) {
	var keep []api.ApprovalSignal
	for _, sig := range w.QueuedDecisions {
		who := strings.TrimSpace(sig.Approver)
		pa := w.ActionByID(sig.ActionID)
		if len(sig.Batch) > 0 {
			switch {
			case why == "" && w.batchStillWaiting(sig):
				keep = append(keep, sig)
			case why != "":
				w.ignore(ctx, "", fmt.Sprintf("batch %s by %s was not applied: %s", sig.Decision, who, why))
			default:
				w.ignore(ctx, "", fmt.Sprintf("batch %s by %s was not applied: an action it names was settled first", sig.Decision, who))
			}
			continue
		}
		switch {
		case why == "" && pa != nil && pa.State == api.ActionWaiting:
			// Another action of the turn, still waiting: its decision
			// stays queued for its own wait.
			keep = append(keep, sig)
		case pa == nil:
			w.ignore(ctx, "", fmt.Sprintf("approval for unknown action %q", sig.ActionID))
		case why != "":
			w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s was not applied: %s", sig.Decision, who, why))
		case pa.State == api.ActionExpired:
			w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s was not confirmed before the action expired", sig.Decision, who))
		default:
			settled, _ := api.ActionOpen(pa, workflow.Now(ctx))
			w.ignore(ctx, pa.StepID, decisionRefused(sig, pa, settled))
		}
	}
	w.QueuedDecisions = keep
}
