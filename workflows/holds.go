// This file is the holds workflow: the stop switch's state, one long-lived
// workflow (api.HoldsWorkflowID) that holds and releases reach by update
// (each answered: placed, refused, …) and the runs waiting on a hold reach
// by signal. It lives in Temporal, not in a table of ours, so the holds
// survive restarts of workers and server, and its query is their audit.
// Runs ask it before each attempt (hold.go). How a hold or release changes
// the holds is holds_change.go.
//
// It is not pinned (registration.Register): each new build replays the
// generation an older one began, so from the first release on a change to
// the commands it makes (which waiting runs a change wakes) is gated with
// workflow.GetVersion (docs/architecture.md, Versioning).

package workflows

import (
	"encoding/json"
	"slices"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

const (
	// maxHoldsChanges is how many changes (holds, releases, waiters) one
	// generation of the holds workflow takes before it continues as new: a
	// change is a few events, so history stays a few thousand events long.
	maxHoldsChanges = 500
	// holdWaiterForgotten is how long a waiting run may go unheard before
	// it is forgotten: a run still held asks again every holdRecheck, so
	// one silent for three of them has ended (a run cancelled while held
	// never says so).
	holdWaiterForgotten = 3 * holdRecheck
)

// Holds is the holds workflow. It never ends; it continues as new, with
// its state, after maxHoldsChanges changes or when Temporal suggests it.
func (d *Definition) Holds(ctx workflow.Context, st api.HoldsState) error {
	h := &holds{state: st}
	if err := workflow.SetQueryHandler(ctx, api.QueryHolds, func() (api.HoldsView, error) {
		return h.state.HoldsView, nil
	}); err != nil {
		return err
	}
	// An update only wakes the loop below, to count it (a run takes a
	// bounded number of updates): its change is applied in its handler.
	kick := workflow.NewBufferedChannel(ctx, 1)
	for _, u := range []struct{ name, action string }{{api.UpdateHold, api.HoldPlaced}, {api.UpdateRelease, api.HoldReleased}} {
		action := u.action
		if err := workflow.SetUpdateHandler(ctx, u.name, func(ctx workflow.Context, sig api.HoldSignal) (api.HoldAnswer, error) {
			h.updates++
			kick.SendAsync(nil)
			return h.change(ctx, action, sig), nil
		}); err != nil {
			return err
		}
	}
	holdCh := workflow.GetSignalChannel(ctx, api.SignalHold)
	releaseCh := workflow.GetSignalChannel(ctx, api.SignalRelease)
	waiterCh := workflow.GetSignalChannel(ctx, api.SignalHoldWaiter)
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(holdCh, func(c workflow.ReceiveChannel, _ bool) { h.onSignal(ctx, api.HoldPlaced, receiveRaw(ctx, c)) })
	sel.AddReceive(releaseCh, func(c workflow.ReceiveChannel, _ bool) { h.onSignal(ctx, api.HoldReleased, receiveRaw(ctx, c)) })
	sel.AddReceive(waiterCh, func(c workflow.ReceiveChannel, _ bool) { h.onWaiter(ctx, receiveRaw(ctx, c)) })
	sel.AddReceive(kick, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, nil) })
	for changes := 0; changes+h.updates < maxHoldsChanges && !workflow.GetInfo(ctx).GetContinueAsNewSuggested(); changes++ {
		sel.Select(ctx)
	}
	// Nothing signalled is lost: what arrived before the new generation
	// starts is applied here and carried.
	for sel.HasPending() {
		sel.Select(ctx)
	}
	// An update still telling freed runs finishes first: its operator
	// hears the answer.
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	h.forgetSilentWaiters(ctx)
	return workflow.NewContinueAsNewError(ctx, api.HoldsWorkflowName, h.state)
}

func receiveRaw(ctx workflow.Context, c workflow.ReceiveChannel) json.RawMessage {
	var raw json.RawMessage
	c.Receive(ctx, &raw)
	return raw
}

type holds struct {
	state api.HoldsState
	// updates counts the updates this generation took.
	updates int
}

// onSignal applies a hold or release sent as a signal by a client before
// updates: as the current rules say, and answered to nobody.
func (h *holds) onSignal(ctx workflow.Context, action string, raw json.RawMessage) {
	var sig api.HoldSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		h.log(ctx, api.HoldRefused, sig, "refused: malformed "+action+" signal")
		return
	}
	h.change(ctx, action, sig)
}

// onWaiter keeps a held run until no hold matches it. A run whose hold was
// released between its check and this signal is told at once.
func (h *holds) onWaiter(ctx workflow.Context, raw json.RawMessage) {
	var w api.HoldWaiter
	if err := json.Unmarshal(raw, &w); err != nil || w.RunID == "" {
		return // not from a run: nothing to wake
	}
	w.Seen = workflow.Now(ctx)
	h.state.Waiters = slices.DeleteFunc(h.state.Waiters, func(o api.HoldWaiter) bool { return o.RunID == w.RunID })
	h.state.Waiters = append(h.state.Waiters, w)
	h.forgetSilentWaiters(ctx)
	h.wakeFreed(ctx)
}

// forgetSilentWaiters drops the runs not heard from for
// holdWaiterForgotten: they ended while held.
func (h *holds) forgetSilentWaiters(ctx workflow.Context) {
	cutoff := workflow.Now(ctx).Add(-holdWaiterForgotten)
	h.state.Waiters = slices.DeleteFunc(h.state.Waiters, func(w api.HoldWaiter) bool { return w.Seen.Before(cutoff) })
}

// wakeFreed tells every waiting run that no hold matches any more, and,
// after a release, every run one of the released holds matched though
// another still does: that run asks again and shows the hold that keeps
// it, where its label named the released one. They are told in the order
// they began to wait; a run that has ended meanwhile refuses the signal,
// which changes nothing.
func (h *holds) wakeFreed(ctx workflow.Context, released ...api.Hold) {
	var still []api.HoldWaiter
	var futures []workflow.Future
	for _, w := range h.state.Waiters {
		heldBefore := slices.ContainsFunc(released, func(r api.Hold) bool { return r.Selector.Matches(w.HoldCheck) })
		if h.state.Matching(w.HoldCheck) != nil && !heldBefore {
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

func (h *holds) log(ctx workflow.Context, action string, sig api.HoldSignal, note string) {
	// A refused change may be oversized: the log keeps a bounded part.
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
