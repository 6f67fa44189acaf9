package workflows

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// listenForSignals handles signals as they arrive, whatever the loop is
// doing, so that a late or duplicate decision is recorded at once.
func (w *agentRun) listenForSignals(ctx workflow.Context) {
	w.approvalCh = workflow.GetSignalChannel(ctx, api.SignalApproval)
	w.resolveCh = workflow.GetSignalChannel(ctx, api.SignalResolve)
	w.refusalCh = workflow.GetSignalChannel(ctx, api.SignalRefusal)
	handleEach(ctx, w.approvalCh, w.onApproval)
	handleEach(ctx, w.resolveCh, w.onResolve)
	handleEach(ctx, w.refusalCh, w.onRefusal)
	w.cancelCh = workflow.GetSignalChannel(ctx, api.SignalCancel)
	handleEach(ctx, w.cancelCh, w.onCancel)
	handleEach(ctx, workflow.GetSignalChannel(ctx, api.SignalSupersede), w.onSupersede)
	released := workflow.GetSignalChannel(ctx, api.SignalHoldsReleased)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			released.Receive(ctx, nil)
			w.holdsReleased++
		}
	})
}

// handleEach passes every signal on ch to handle, in arrival order. Signals
// are received raw so that a malformed one is recorded, not silently dropped.
func handleEach(ctx workflow.Context, ch workflow.ReceiveChannel, handle func(workflow.Context, json.RawMessage)) {
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var raw json.RawMessage
			ch.Receive(ctx, &raw)
			handle(ctx, raw)
		}
	})
}

// onRefusal records a decision the approval server refused, so that the
// refusal is part of the run itself and survives a restart of that server.
func (w *agentRun) onRefusal(ctx workflow.Context, raw json.RawMessage) {
	var sig api.RefusalSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		w.ignore(ctx, "", "malformed refusal signal: "+err.Error())
		return
	}
	stepID := ""
	if pa := w.ActionByID(sig.ActionID); pa != nil {
		stepID = pa.StepID
	}
	w.ignore(ctx, stepID, refusalNote(sig))
}

func (w *agentRun) onApproval(ctx workflow.Context, raw json.RawMessage) {
	var sig api.ApprovalSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		w.ignore(ctx, "", "malformed approval signal: "+err.Error())
		return
	}
	if len(sig.Batch) > 0 {
		w.onBatch(ctx, sig)
		return
	}
	w.onDecision(ctx, sig)
}

// onBatch applies a decision on several actions whole or not at all: it
// splits (splitBatch), and every part must pass every check before
// any applies (RefuseBatch). On a run that asks GitHub who may
// decide, the batch waits in the queue as one decision, for one check.
func (w *agentRun) onBatch(ctx workflow.Context, sig api.ApprovalSignal) {
	parts, why := splitBatch(sig, w.agent.BatchApproval, w.agent.Name, w.ActionByID)
	if why == "" {
		why = repeatedBatch(sig, parts, w.ActionByID)
	}
	if why == "" {
		why = w.rules().RefuseBatch(sig, parts, w.ActionByID, workflow.Now(ctx))
	}
	w.rememberBatch(sig, parts)
	if why != "" {
		w.ignore(ctx, "", why)
		return
	}
	if w.needsPermissionCheck() {
		w.queueDecision(ctx, w.ActionByID(sig.ActionID), sig)
		return
	}
	w.applyBatch(ctx, parts)
}

// rememberBatch records the batch's request on each action it names, as a
// decision alone is remembered whether or not it applies.
func (w *agentRun) rememberBatch(sig api.ApprovalSignal, parts []api.ApprovalSignal) {
	key := api.RequestKey(sig.Channel, strings.TrimSpace(sig.Approver), sig.RequestID)
	for _, part := range parts {
		if pa := w.ActionByID(part.ActionID); pa != nil {
			remember(pa, key)
		}
	}
}

// applyBatch settles every part of a batch that passed its checks.
func (w *agentRun) applyBatch(ctx workflow.Context, parts []api.ApprovalSignal) {
	for _, part := range parts {
		w.applyDecision(ctx, w.ActionByID(part.ActionID), part)
	}
}

func (w *agentRun) rules() decisionRules {
	return decisionRules{Approvers: w.Run.Approvers}
}

// onDecision handles a decision on one action.
func (w *agentRun) onDecision(ctx workflow.Context, sig api.ApprovalSignal) {
	pa := w.ActionByID(sig.ActionID)
	if pa == nil {
		w.ignore(ctx, "", fmt.Sprintf("approval for unknown action %q", sig.ActionID))
		return
	}
	if !remember(pa, api.RequestKey(sig.Channel, strings.TrimSpace(sig.Approver), sig.RequestID)) {
		w.ignore(ctx, pa.StepID, fmt.Sprintf("repeated request %q", sig.RequestID))
		return
	}
	if sig.ArgsHash != "" && sig.ArgsHash != pa.ArgsHash {
		w.ignore(ctx, pa.StepID, fmt.Sprintf("%s by %s names another input (argsHash) than the action's", sig.Decision, strings.TrimSpace(sig.Approver)))
		return
	}
	if why := w.refuseDecision(ctx, pa, sig); why != "" {
		w.ignore(ctx, pa.StepID, why)
		return
	}
	if len(sig.Args) > 0 {
		// Refused at once, whoever sent it: a permission check would not
		// make a bad edit good.
		if _, why := w.checkEdit(pa, sig); why != "" {
			w.ignore(ctx, pa.StepID, why)
			return
		}
	}
	if w.needsPermissionCheck() {
		w.queueDecision(ctx, pa, sig)
		return
	}
	w.applyDecision(ctx, pa, sig)
}

// applyDecision settles a waiting action on a decision the policy allows.
func (w *agentRun) applyDecision(ctx workflow.Context, pa *api.PendingAction, sig api.ApprovalSignal) {
	who, reason := strings.TrimSpace(sig.Approver), strings.TrimSpace(sig.Reason)
	switch sig.Decision {
	case api.DecisionApprove:
		if len(sig.Args) > 0 {
			if why := w.applyEdit(ctx, pa, sig); why != "" {
				w.ignore(ctx, pa.StepID, why)
				return
			}
		}
		w.setActionState(ctx, pa, api.ActionApproved, who, reason)
	case api.DecisionRespond:
		pa.Feedback = true
		w.setActionState(ctx, pa, api.ActionRejected, who, reason)
	default:
		w.setActionState(ctx, pa, api.ActionRejected, who, reason)
	}
}

// refuseDecision says why a decision cannot apply, or "" when it can. A
// decision at or past the deadline expires the action here, so that the
// race with the timer has one outcome, settled in the workflow.
func (w *agentRun) refuseDecision(ctx workflow.Context, pa *api.PendingAction, sig api.ApprovalSignal) string {
	why, expired := w.rules().Refuse(pa, sig, workflow.Now(ctx))
	if expired {
		w.setActionState(ctx, pa, api.ActionExpired, "", "no decision before "+pa.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return why
}

// requestApproval creates the pending action for a gated step.
func (w *agentRun) requestApproval(ctx workflow.Context, st *api.AgentStep, c tools.Checked) {
	now := workflow.Now(ctx)
	pa := &api.PendingAction{
		ID:          api.ActionID(w.Run.ID, workflow.GetInfo(ctx).FirstRunID, st.Sequence),
		StepID:      st.ID,
		ToolName:    st.ToolName,
		SafeInput:   st.SafeInput,
		Preview:     c.Preview,
		Target:      c.Touches,
		ArgsHash:    c.ArgsHash,
		Args:        shownArgs(c),
		Editable:    c.Editable && shownArgs(c) != nil,
		PreviewKind: c.Spec.PreviewKind,
		State:       api.ActionWaiting,
		RequestedBy: w.Run.UserID,
		Approvers:   w.Run.Approvers,
		Words:       st.Words,
		CreatedAt:   now,
		ExpiresAt:   now.Add(w.in.ApprovalTimeout),
		Caution:     w.caution(st.ID, c.Touches),
	}
	if pa.Editable && len(c.Spec.Parameters) <= api.MaxArgsSchemaBytes {
		pa.ArgsSchema = c.Spec.Parameters
	}
	w.Actions = append(w.Actions, pa)
	countRun(ctx, w.in.Agent, api.MetricApprovalsRequested)
	if w.Run.Status == api.RunWaitingForUser {
		w.upsertActionIDs(ctx) // else the wait below publishes them
	}
	gate := w.newStep(ctx, api.StepHumanApproval, st.CallID, st.ToolName, redact.JSON(map[string]string{"actionId": pa.ID}))
	gate.Words = st.Words
	w.setLabel(words(st).WaitingLabel())
	w.setStepStatus(ctx, gate, api.StepWaitingForApproval, "")
	w.setStepStatus(ctx, st, api.StepWaitingForApproval, "")
	w.emit(ctx, api.EventActionState, st.ID, string(api.ActionWaiting), "action "+pa.ID)
	w.setRunStatus(ctx, api.RunWaitingForUser, words(st).WaitingLabel(), "")
}

// caution names, for the approver of st on target, every action on target
// whose effect may exist though nobody saw it: the earlier runs' a
// follow-up carries, and this run's own.
func (s *runState) caution(stepID, target string) string {
	doubt := slices.Clone(s.EarlierInDoubt)
	for _, other := range s.Steps {
		if other.ID != stepID && api.InDoubt(*other) {
			doubt = append(doubt, api.InDoubtOf(s.Run.ID, *other))
		}
	}
	var parts []string
	for _, a := range doubt {
		if a.Target == "" || a.Target == target {
			parts = append(parts, a.Caution())
		}
	}
	return strings.Join(parts, "; ")
}

// refreshCautions makes every action still waiting caution of the run's
// actions in doubt as they are now: an action asked with an earlier one
// of its turn was asked before that one was sent, and its approver must
// still be told when that one ends in doubt.
func (s *runState) refreshCautions() {
	for _, pa := range s.Actions {
		if pa.State == api.ActionWaiting {
			pa.Caution = s.caution(pa.StepID, pa.Target)
		}
	}
}

// upsertActionIDs publishes every action ID of the run, so that a decision
// naming only an action ID finds its run in one visibility query.
func (w *agentRun) upsertActionIDs(ctx workflow.Context) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, api.SearchAttrActionIDs.ValueSet(actionIDs(&w.Checkpoint))); err != nil {
		workflow.GetLogger(ctx).Warn("upsert AgentRunActionIds failed", "error", err)
	}
	publishInbox(ctx, &w.Checkpoint) // an action proposed while the run already waits
}

func (w *agentRun) gateStepFor(st *api.AgentStep) *api.AgentStep {
	for _, g := range w.Steps {
		if g.Type == api.StepHumanApproval && g.CallID == st.CallID && g.Sequence > st.Sequence && !g.Status.IsTerminal() {
			return g
		}
	}
	return nil
}

// awaitDecisionOrExpiry waits until the action is decided, its timer fires
// or the run should continue as new, checking queued decisions (see
// policy.go) as they come. Queued decisions go before a continue-as-new, and
// the timer before them.
func (w *agentRun) awaitDecisionOrExpiry(ctx workflow.Context, pa *api.PendingAction, timer workflow.Future) error {
	for {
		workflow.SetCurrentDetails(ctx, waitingDetails(&w.Checkpoint, pa, workflow.Now(ctx)))
		err := workflow.Await(ctx, func() bool {
			return pa.State != api.ActionWaiting || timer.IsReady() || len(w.QueuedDecisions) > 0 || w.continueAsNewDue(ctx)
		})
		if err != nil || pa.State != api.ActionWaiting || timer.IsReady() || len(w.QueuedDecisions) == 0 {
			return err
		}
		if err := w.checkNextDecision(ctx, pa, timer); err != nil {
			return err
		}
	}
}

// awaitDecision waits for the approval signal or the expiry timer and applies
// the outcome to the steps. It returns the tool result for a rejection or an
// expiry, and "" when approved.
func (w *agentRun) awaitDecision(ctx workflow.Context, st *api.AgentStep) (string, error) {
	pa := w.ActionForStep(st.ID)
	if remaining := pa.ExpiresAt.Sub(workflow.Now(ctx)); pa.State == api.ActionWaiting && remaining > 0 {
		timerCtx, cancelTimer := workflow.WithCancel(ctx)
		timer := workflow.NewTimerWithOptions(timerCtx, remaining, workflow.TimerOptions{
			Summary: fmt.Sprintf("Approval of %s on %s expires (%s)", pa.ID, pa.Target, api.HumanDuration(remaining)),
		})
		err := w.awaitDecisionOrExpiry(ctx, pa, timer)
		// A worker settles a cancelled timer at once, so whether it fired
		// must be read before the cancel.
		fired := timer.IsReady()
		cancelTimer()
		if err != nil {
			return "", err
		}
		if pa.State == api.ActionWaiting && w.cancelling(ctx) != nil {
			// A cancel cancels the timer too: that is no expiry.
			return "", errCancelled
		}
		if pa.State == api.ActionWaiting && !fired {
			return "", errContinueAsNew
		}
	}
	if pa.State == api.ActionWaiting {
		w.setActionState(ctx, pa, api.ActionExpired, "", "no decision before "+pa.ExpiresAt.UTC().Format(time.RFC3339))
	}
	w.dropQueuedDecisions(ctx, "")
	gate := w.gateStepFor(st)
	if gate == nil {
		gate = w.newStep(ctx, api.StepHumanApproval, st.CallID, st.ToolName, redact.JSON(map[string]string{"actionId": pa.ID}))
		gate.Words = st.Words
		w.setStepStatus(ctx, gate, api.StepWaitingForApproval, "")
	}
	switch pa.State {
	case api.ActionApproved:
		w.setLabel(words(st).Making())
		w.setStepStatus(ctx, gate, api.StepSucceeded, "approved by "+pa.DecidedBy)
		w.setStepStatus(ctx, st, api.StepRunning, "approved by "+pa.DecidedBy)
		w.setRunStatus(ctx, api.RunRunning, words(st).Making(), "approved by "+pa.DecidedBy)
		return "", nil
	case api.ActionRejected:
		reason := pa.Reason
		if reason == "" {
			reason = "no reason given"
		}
		how := "rejected by " + pa.DecidedBy
		if pa.Feedback {
			how = "answered with feedback by " + pa.DecidedBy
		}
		w.setLabel(words(st).RejectedLabel())
		w.setStepStatus(ctx, gate, api.StepRejected, how)
		w.setStepStatus(ctx, st, api.StepRejected, how)
		w.setRunStatus(ctx, api.RunRunning, words(st).RejectedLabel(), "")
		if pa.Feedback {
			return api.FeedbackResult(pa.DecidedBy, reason), nil
		}
		return fmt.Sprintf("rejected by %s: %s", pa.DecidedBy, reason), nil
	default:
		w.setLabel(words(st).ExpiredLabel())
		w.setStepStatus(ctx, gate, api.StepExpired, pa.Reason)
		w.setStepStatus(ctx, st, api.StepExpired, pa.Reason)
		w.setRunStatus(ctx, api.RunRunning, words(st).ExpiredLabel(), "")
		return "expired: " + pa.Reason + "; nothing was " + words(st).Past, nil
	}
}
