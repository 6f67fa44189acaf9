// This file is the holds workflow: the stop switch's state, one long-lived
// workflow (api.HoldsWorkflowID) that holds, releases and the runs waiting
// on a hold reach by signal. It lives in Temporal, not in a table of ours,
// so the holds survive restarts of workers and server, and its query is
// their audit. Runs ask it before each attempt (hold.go).

package workflows

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// maxHoldsChanges is how many signals one generation of the holds workflow
// takes before it continues as new: a hold, a release and a waiter are a
// few events each, so history stays a few thousand events long.
const maxHoldsChanges = 500

// Holds is the holds workflow. It never ends; it continues as new, with
// its state, after maxHoldsChanges signals or when Temporal suggests it.
func (d *Definition) Holds(ctx workflow.Context, st api.HoldsState) error {
	h := &holds{state: st}
	if err := workflow.SetQueryHandler(ctx, api.QueryHolds, func() (api.HoldsView, error) {
		return h.state.HoldsView, nil
	}); err != nil {
		return err
	}
	holdCh := workflow.GetSignalChannel(ctx, api.SignalHold)
	releaseCh := workflow.GetSignalChannel(ctx, api.SignalRelease)
	waiterCh := workflow.GetSignalChannel(ctx, api.SignalHoldWaiter)
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(holdCh, func(c workflow.ReceiveChannel, _ bool) { h.onHold(ctx, receiveRaw(ctx, c)) })
	sel.AddReceive(releaseCh, func(c workflow.ReceiveChannel, _ bool) { h.onRelease(ctx, receiveRaw(ctx, c)) })
	sel.AddReceive(waiterCh, func(c workflow.ReceiveChannel, _ bool) { h.onWaiter(ctx, receiveRaw(ctx, c)) })
	for changes := 0; changes < maxHoldsChanges && !workflow.GetInfo(ctx).GetContinueAsNewSuggested(); changes++ {
		sel.Select(ctx)
	}
	// Nothing signalled is lost: what arrived before the new generation
	// starts is applied here and carried.
	for sel.HasPending() {
		sel.Select(ctx)
	}
	return workflow.NewContinueAsNewError(ctx, api.HoldsWorkflowName, h.state)
}

func receiveRaw(ctx workflow.Context, c workflow.ReceiveChannel) json.RawMessage {
	var raw json.RawMessage
	c.Receive(ctx, &raw)
	return raw
}

type holds struct{ state api.HoldsState }

func (h *holds) onHold(ctx workflow.Context, raw json.RawMessage) {
	sig, ok := h.decode(ctx, api.HoldPlaced, raw)
	if !ok {
		return
	}
	note := ""
	if i := h.find(sig.Selector); i >= 0 {
		prev := h.state.Active[i]
		note = "replaces the hold placed by " + prev.By + ": " + prev.Reason
		h.state.Active = slices.Delete(h.state.Active, i, i+1)
	} else if len(h.state.Active) >= api.MaxHolds {
		h.log(ctx, api.HoldRefused, sig, "refused: already "+strconv.Itoa(api.MaxHolds)+" holds; release one first")
		return
	}
	h.state.Active = append(h.state.Active, api.Hold{
		Selector: sig.Selector, By: sig.By, Reason: sig.Reason, Channel: sig.Channel, At: workflow.Now(ctx),
	})
	h.log(ctx, api.HoldPlaced, sig, note)
}

func (h *holds) onRelease(ctx workflow.Context, raw json.RawMessage) {
	sig, ok := h.decode(ctx, api.HoldReleased, raw)
	if !ok {
		return
	}
	i := h.find(sig.Selector)
	if i < 0 {
		h.log(ctx, api.HoldRefused, sig, "nothing to release: no hold on "+sig.Selector.String())
		return
	}
	prev := h.state.Active[i]
	h.state.Active = slices.Delete(h.state.Active, i, i+1)
	h.log(ctx, api.HoldReleased, sig, "releases the hold placed by "+prev.By+": "+prev.Reason)
	h.wakeFreed(ctx)
}

// onWaiter keeps a held run until no hold matches it. A run whose hold was
// released between its check and this signal is told at once.
func (h *holds) onWaiter(ctx workflow.Context, raw json.RawMessage) {
	var w api.HoldWaiter
	if err := json.Unmarshal(raw, &w); err != nil || w.RunID == "" {
		return // not from a run: nothing to wake
	}
	h.state.Waiters = slices.DeleteFunc(h.state.Waiters, func(o api.HoldWaiter) bool { return o.RunID == w.RunID })
	h.state.Waiters = append(h.state.Waiters, w)
	h.wakeFreed(ctx)
}

// wakeFreed tells every waiting run that no hold matches any more, in the
// order they began to wait. A run that has ended meanwhile refuses the
// signal, which changes nothing.
func (h *holds) wakeFreed(ctx workflow.Context) {
	var still []api.HoldWaiter
	var futures []workflow.Future
	for _, w := range h.state.Waiters {
		if h.state.Matching(w) != nil {
			still = append(still, w)
			continue
		}
		futures = append(futures, workflow.SignalExternalWorkflow(ctx, w.RunID, "", api.SignalHoldsReleased, nil))
	}
	h.state.Waiters = still
	for _, f := range futures {
		_ = f.Get(ctx, nil) // an ended run has nothing to resume
	}
}

func (h *holds) decode(ctx workflow.Context, action string, raw json.RawMessage) (api.HoldSignal, bool) {
	var sig api.HoldSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		h.log(ctx, api.HoldRefused, sig, "refused: malformed "+action+" signal")
		return sig, false
	}
	sig.By, sig.Reason = strings.TrimSpace(sig.By), strings.TrimSpace(sig.Reason)
	if err := sig.Validate(); err != nil {
		h.log(ctx, api.HoldRefused, sig, "refused "+action+": "+err.Error())
		return sig, false
	}
	return sig, true
}

func (h *holds) find(s api.HoldSelector) int {
	return slices.IndexFunc(h.state.Active, func(a api.Hold) bool { return a.Selector == s })
}

func (h *holds) log(ctx workflow.Context, action string, sig api.HoldSignal, note string) {
	// A refused signal may be oversized: the log keeps a bounded part.
	sig.By, sig.Reason = clip(sig.By, api.MaxHoldSelectorBytes), clip(sig.Reason, api.MaxHoldReasonBytes)
	sig.Selector = api.HoldSelector{
		Agent: clip(sig.Selector.Agent, api.MaxHoldSelectorBytes), Target: clip(sig.Selector.Target, api.MaxHoldSelectorBytes), Tool: clip(sig.Selector.Tool, api.MaxHoldSelectorBytes),
	}
	h.state.Log = append(h.state.Log, api.HoldEvent{
		Action: action, Selector: sig.Selector, By: sig.By, Reason: sig.Reason, Channel: sig.Channel,
		At: workflow.Now(ctx), Note: note,
	})
	if n := len(h.state.Log) - api.MaxHoldLog; n > 0 {
		h.state.Log = slices.Delete(h.state.Log, 0, n)
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
