// This file is how a hold or release changes the holds: each operator's
// hold on a selector is that operator's own, a run is held while any hold
// matches it, and a release lifts the sender's hold alone unless it says
// All. Every change, applied or not, is in the audit log with who, when,
// why and what it did.

package workflows

import (
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// change applies a hold (action api.HoldPlaced) or a release
// (api.HoldReleased) and answers what it did.
func (h *holds) change(ctx workflow.Context, action string, sig api.HoldSignal) api.HoldAnswer {
	sig, err := canonicalHold(sig)
	if err != nil {
		note := "refused " + action + ": " + err.Error()
		h.log(ctx, api.HoldRefused, sig, note)
		return api.HoldAnswer{Outcome: api.HoldOutcomeRefused, Selector: sig.Selector, Note: note}
	}
	if action == api.HoldReleased {
		return h.release(ctx, sig)
	}
	return h.place(ctx, sig)
}

// canonicalHold is sig with who and why trimmed and its selector in
// canonical form, or why it is no hold or release.
func canonicalHold(sig api.HoldSignal) (api.HoldSignal, error) {
	sig.By, sig.Reason = strings.TrimSpace(sig.By), strings.TrimSpace(sig.Reason)
	if err := sig.Validate(); err != nil {
		return sig, err
	}
	sig.Selector, _ = sig.Selector.Canonical() // Validate checked it
	return sig, nil
}

func (h *holds) place(ctx workflow.Context, sig api.HoldSignal) api.HoldAnswer {
	answer := api.HoldAnswer{Selector: sig.Selector}
	if sig.All {
		answer.Outcome, answer.Note = api.HoldOutcomeRefused, "refused: all goes with a release, not a hold"
		h.log(ctx, api.HoldRefused, sig, answer.Note)
		return answer
	}
	answer.Outcome = api.HoldOutcomePlaced
	if i := h.findOwn(sig); i >= 0 {
		prev := h.state.Active[i]
		answer.Outcome, answer.Note = api.HoldOutcomeReplaced, "replaces the hold placed by "+prev.By+": "+prev.Reason
		h.state.Active = slices.Delete(h.state.Active, i, i+1)
	} else if len(h.state.Active) >= api.MaxHolds {
		answer.Outcome, answer.Note = api.HoldOutcomeRefused, "refused: already "+strconv.Itoa(api.MaxHolds)+" holds; release one first"
		h.log(ctx, api.HoldRefused, sig, answer.Note)
		return answer
	}
	answer.Others = h.holdsOn(sig.Selector)
	h.state.Active = append(h.state.Active, api.Hold{
		Selector: sig.Selector, By: sig.By, Reason: sig.Reason, Channel: sig.Channel, At: workflow.Now(ctx),
	})
	h.log(ctx, api.HoldPlaced, sig, answer.Note)
	return answer
}

func (h *holds) release(ctx workflow.Context, sig api.HoldSignal) api.HoldAnswer {
	answer := api.HoldAnswer{Selector: sig.Selector}
	var released []api.Hold
	h.state.Active = slices.DeleteFunc(h.state.Active, func(a api.Hold) bool {
		lift := a.Selector == sig.Selector && (sig.All || a.SameSender(sig.By))
		if lift {
			released = append(released, a)
		}
		return lift
	})
	answer.Others = h.holdsOn(sig.Selector)
	if len(released) == 0 {
		answer.Outcome = api.HoldOutcomeNothingToRelease
		answer.Note = "nothing to release: no hold on " + sig.Selector.String()
		if len(answer.Others) > 0 {
			answer.Note += " by " + sig.By + "; held by " + senders(answer.Others) + " (a release with all lifts every hold on it)"
		}
		h.log(ctx, api.HoldRefused, sig, answer.Note)
		return answer
	}
	answer.Outcome = api.HoldOutcomeReleased
	answer.Note = "releases the hold placed by " + released[0].By + ": " + released[0].Reason
	if len(released) > 1 {
		answer.Note = "releases the holds placed by " + senders(released)
	}
	if len(answer.Others) > 0 {
		answer.Note += "; still held by " + senders(answer.Others)
	}
	h.log(ctx, api.HoldReleased, sig, answer.Note)
	h.wakeFreed(ctx, released...)
	return answer
}

// findOwn is the index of sig's sender's hold on its selector, or -1.
func (h *holds) findOwn(sig api.HoldSignal) int {
	return slices.IndexFunc(h.state.Active, func(a api.Hold) bool { return a.Selector == sig.Selector && a.SameSender(sig.By) })
}

// holdsOn are the active holds on sel, oldest first.
func (h *holds) holdsOn(sel api.HoldSelector) []api.Hold {
	var on []api.Hold
	for _, a := range h.state.Active {
		if a.Selector == sel {
			on = append(on, a)
		}
	}
	return on
}

// senders names who placed holds: "alice, bob".
func senders(hs []api.Hold) string {
	names := make([]string, len(hs))
	for i, a := range hs {
		names[i] = a.By
	}
	return strings.Join(names, ", ")
}
