// This file is the rules a run applies to the signals people send it:
// which decision may apply to which action, how a batch splits into single
// decisions, when a resolve applies, and what a refusal records. They are
// pure functions of the signal and the run's state; the workflow applies
// what they allow.

package workflows

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
)

// maxRequestIDs bounds the requestIds an action remembers.
const maxRequestIDs = 100

// maxFieldBytes bounds what one refusal or look-alike writes into the run's
// events and history: api's bound.
const maxFieldBytes = api.MaxShownBytes

// decisionRules are the run's rules for decisions: Approvers are the run's.
type decisionRules struct {
	Approvers []string
}

// remember records a request's RequestKey on the action and reports whether
// it is new. Refused requests are remembered too, so a retry is recognised.
func remember(pa *api.PendingAction, key string) bool {
	if key == "" {
		return true
	}
	if slices.Contains(pa.RequestKeys, key) {
		return false
	}
	if len(pa.RequestKeys) < maxRequestIDs {
		pa.RequestKeys = append(pa.RequestKeys, key)
	}
	return true
}

// Refuse says why a decision cannot apply to pa now, or "" when it can.
// expired is true when the decision came at or past the deadline: the
// workflow then expires the action itself, so that the race with the timer
// has one outcome.
func (r decisionRules) Refuse(pa *api.PendingAction, sig api.ApprovalSignal, now time.Time) (why string, expired bool) {
	who := strings.TrimSpace(sig.Approver)
	switch {
	case sig.Decision != api.DecisionApprove && sig.Decision != api.DecisionReject && sig.Decision != api.DecisionRespond:
		return fmt.Sprintf("unknown decision %q from %s", api.TruncateUTF8(sig.Decision, maxFieldBytes), who), false
	case who == "":
		return "decision without an approver", false
	case sig.Decision == api.DecisionReject && strings.TrimSpace(sig.Reason) == "":
		// The model and the requester learn only the reason; a bare no
		// teaches neither, so the approval layer asks for one and so do we.
		return fmt.Sprintf("reject by %s without a reason; a reject must say why", who), false
	case sig.Decision == api.DecisionRespond && strings.TrimSpace(sig.Reason) == "":
		return fmt.Sprintf("respond by %s without feedback", who), false
	case sig.Decision == api.DecisionRespond && len(sig.Reason) > api.MaxFeedbackBytes:
		return fmt.Sprintf("respond by %s: feedback is %d bytes; at most %d", who, len(sig.Reason), api.MaxFeedbackBytes), false
	case len(sig.Args) > 0 && sig.Decision != api.DecisionApprove:
		return fmt.Sprintf("%s by %s carries edited arguments; only an approval may", sig.Decision, who), false
	case len(sig.Args) > api.MaxEditArgsBytes:
		return fmt.Sprintf("edit by %s: the edited arguments are %d bytes; at most %d", who, len(sig.Args), api.MaxEditArgsBytes), false
	}
	if why := api.RefuseApprover(r.Approvers, who); why != "" {
		return why, false
	}
	if why, due := api.ActionOpen(pa, now); why != "" {
		return decisionRefused(sig, pa, why), due
	}
	return "", false
}

// decisionRefused is why, one of api's refusals of a decision on pa, said
// of the decision sig, naming each person once: a decision by whoever
// already decided pa reads "approve by bob: the action was already
// approved by them", not "by bob" twice.
func decisionRefused(sig api.ApprovalSignal, pa *api.PendingAction, why string) string {
	who := api.TruncateUTF8(strings.TrimSpace(sig.Approver), maxFieldBytes)
	decided := pa.State == api.ActionApproved || pa.State == api.ActionRejected
	if decided && pa.DecidedBy != "" && api.SameLogin(pa.DecidedBy, who) {
		at := ""
		if pa.DecidedAt != nil {
			at = " at " + pa.DecidedAt.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("%s by %s: the action was already %s by them%s", sig.Decision, who, pa.State, at)
	}
	return fmt.Sprintf("%s by %s: %s", sig.Decision, who, why)
}

// splitBatch splits a decision on several actions into one decision per
// action, each as if it came alone, or says why the batch is refused. It is
// taken whole or not at all: every action must exist (lookup) and still have
// the input its argsHash names. allowed is the run's agent's BatchApproval.
func splitBatch(sig api.ApprovalSignal, allowed bool, agent string, lookup func(id string) *api.PendingAction) ([]api.ApprovalSignal, string) {
	refs := append([]api.ActionRef{{ActionID: sig.ActionID, ArgsHash: sig.ArgsHash}}, sig.Batch...)
	why := ""
	switch {
	case !allowed:
		why = fmt.Sprintf("agent %s takes one decision per action, not a batch", agent)
	case len(sig.Args) > 0:
		why = "a batch cannot carry edited arguments; edit one action at a time"
	case sig.Decision == api.DecisionRespond:
		why = "a batch cannot answer with feedback; respond to one action at a time"
	case len(refs) > api.MaxBatch:
		why = fmt.Sprintf("a batch covers at most %d actions, not %d", api.MaxBatch, len(refs))
	}
	seen := map[string]bool{}
	for _, ref := range refs {
		pa := lookup(ref.ActionID)
		switch {
		case why != "":
		case pa == nil:
			why = fmt.Sprintf("the batch names unknown action %q", ref.ActionID)
		case seen[ref.ActionID]:
			why = fmt.Sprintf("the batch names action %s twice", ref.ActionID)
		case ref.ArgsHash != pa.ArgsHash:
			why = fmt.Sprintf("the batch's argsHash for %s is not the action's input", ref.ActionID)
		}
		seen[ref.ActionID] = true
	}
	if why != "" {
		return nil, fmt.Sprintf("batch %s by %s not applied: %s", sig.Decision, strings.TrimSpace(sig.Approver), why)
	}
	out := make([]api.ApprovalSignal, len(refs))
	for i, ref := range refs {
		out[i] = sig
		out[i].ActionID, out[i].ArgsHash, out[i].Batch = ref.ActionID, ref.ArgsHash, nil
	}
	return out, ""
}

// RefuseBatch says why the parts of a batch (splitBatch) cannot all apply
// now, or "" when every part passes every check it would pass alone: a known
// decision and approver, a reject's reason, an action still waiting and not
// past its deadline. A batch is one decision, so one part that cannot apply
// stops every other. It changes nothing: a part at its deadline is left for
// the timer to expire.
func (r decisionRules) RefuseBatch(sig api.ApprovalSignal, parts []api.ApprovalSignal, lookup func(id string) *api.PendingAction, now time.Time) string {
	for _, part := range parts {
		why := ""
		if pa := lookup(part.ActionID); pa == nil {
			why = fmt.Sprintf("the batch names unknown action %q", part.ActionID)
		} else if why, _ = r.Refuse(pa, part, now); why != "" {
			why = fmt.Sprintf("action %s: %s", pa.ID, why)
		}
		if why != "" {
			return batchRefusal(sig, why)
		}
	}
	return ""
}

// repeatedBatch says which part of a batch already saw its request, or "".
// It is checked once, as the batch arrives: the batch then remembers its
// request on every part (remember).
func repeatedBatch(sig api.ApprovalSignal, parts []api.ApprovalSignal, lookup func(id string) *api.PendingAction) string {
	key := api.RequestKey(sig.Channel, strings.TrimSpace(sig.Approver), sig.RequestID)
	if key == "" {
		return ""
	}
	for _, part := range parts {
		if pa := lookup(part.ActionID); pa != nil && slices.Contains(pa.RequestKeys, key) {
			return batchRefusal(sig, fmt.Sprintf("repeated request %q on action %s", sig.RequestID, pa.ID))
		}
	}
	return ""
}

func batchRefusal(sig api.ApprovalSignal, why string) string {
	return fmt.Sprintf("batch %s by %s not applied: %s", sig.Decision, api.TruncateUTF8(strings.TrimSpace(sig.Approver), maxFieldBytes), why)
}

// refuseResolve says why a resolve cannot apply, or "": awaiting is the step
// the run waits on an operator for, resolved the resolve it already took.
func refuseResolve(sig api.ResolveSignal, awaiting string, resolved *api.ResolveSignal) string {
	switch {
	case !api.ResolveApplies(api.RunSnapshot{AwaitingResolve: awaiting}, sig.StepID):
		return fmt.Sprintf("step %q is not waiting for an operator", sig.StepID)
	case sig.Decision != api.ResolveRetry && sig.Decision != api.ResolveMarkSucceeded && sig.Decision != api.ResolveAbandon:
		return fmt.Sprintf("unknown resolve decision %q", sig.Decision)
	case sig.By == "":
		return "resolve without who decided (by)"
	case sig.Decision == api.ResolveMarkSucceeded && sig.ExternalResourceID == "":
		return "mark_succeeded needs the externalResourceId of what the action made"
	case resolved != nil:
		return "duplicate: the step was already resolved by " + resolved.By
	}
	return ""
}

// refusalNote is what a decision the approval server refused records in the
// run: who sent it, unless the reason already names them, and why.
func refusalNote(sig api.RefusalSignal) string {
	channel, reason := api.TruncateUTF8(sig.Channel, maxFieldBytes), api.TruncateUTF8(sig.Reason, maxFieldBytes)
	who := api.TruncateUTF8(strings.TrimSpace(sig.Who), maxFieldBytes)
	if who == "" || strings.Contains(reason, who) {
		return fmt.Sprintf("refused by the approval server (%s): %s", channel, reason)
	}
	return fmt.Sprintf("refused by the approval server (%s): a decision by %s: %s", channel, who, reason)
}

// lookalikeNote is what one look-alike of an action's effect records in the
// run, named in its system's terms (api.IgnoredComment), or as what the
// step's tool makes.
func lookalikeNote(c api.IgnoredComment, w api.ToolWords) string {
	note := "ignored " + api.TruncateUTF8(cmp.Or(c.Kind, w.Noun, "comment"), maxFieldBytes) + " " + api.TruncateUTF8(c.Name(), maxFieldBytes)
	if c.Author != "" {
		note += " by " + api.TruncateUTF8(c.Author, maxFieldBytes)
	}
	return note + ": " + api.TruncateUTF8(c.Why, maxFieldBytes)
}

// carriedByContinueAsNew reports whether a run's input came from the
// previous run of its chain, the only source a checkpoint may come from.
// ContinuedExecutionRunID alone does not prove it: a cron run has a previous
// run too, and so has a workflow retry (attempt 2 and on), and both repeat
// the original start request's input, whoever sent it. A continue-as-new
// starts its run at attempt 1, without a cron schedule.
func carriedByContinueAsNew(continuedFrom string, attempt int32, cronSchedule string) bool {
	return continuedFrom != "" && attempt == 1 && cronSchedule == ""
}
