// This file is what a holds generation begun before holdsPerOperator keeps
// doing. The holds workflow is not pinned, so a new build replays the
// generation an older build began, and must make the commands it made:
// which waiting runs a release or a waiter wakes depends on which holds
// stand and how they match, so such a generation keeps the old rules for
// signals (one hold per selector, whoever placed it; selectors compared as
// typed) until it continues as new. The first update it takes (a current
// client's hold or release) is applied under the current rules and makes
// it continue as new at once, its holds brought to the current form
// (upgradeState). Delete this file once no generation begun on a build
// before holdsPerOperator can be open (testdata/replay-holds/build-*.json
// goes with it).

package workflows

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// legacySignal applies a hold or release signal by the old rules.
func (h *holds) legacySignal(ctx workflow.Context, action string, raw json.RawMessage) {
	var sig api.HoldSignal
	if err := json.Unmarshal(raw, &sig); err != nil {
		h.log(ctx, api.HoldRefused, sig, "refused: malformed "+action+" signal")
		return
	}
	sig.By, sig.Reason = strings.TrimSpace(sig.By), strings.TrimSpace(sig.Reason)
	if err := legacyValidate(sig); err != nil {
		h.log(ctx, api.HoldRefused, sig, "refused "+action+": "+err.Error())
		return
	}
	i := slices.IndexFunc(h.state.Active, func(a api.Hold) bool { return a.Selector == sig.Selector })
	if action == api.HoldReleased {
		if i < 0 {
			h.log(ctx, api.HoldRefused, sig, "nothing to release: no hold on "+sig.Selector.String())
			return
		}
		prev := h.state.Active[i]
		h.state.Active = slices.Delete(h.state.Active, i, i+1)
		h.log(ctx, api.HoldReleased, sig, "releases the hold placed by "+prev.By+": "+prev.Reason)
		h.wakeFreed(ctx)
		return
	}
	note := ""
	if i >= 0 {
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

// legacyValidate is the old api.HoldSignal.Validate: who, why, and a
// selector of exactly one thing, each within bounds, nothing more.
func legacyValidate(s api.HoldSignal) error {
	switch {
	case s.By == "":
		return errors.New("a hold or release names who asks it")
	case s.Reason == "":
		return errors.New("a hold or release says why")
	case len(s.Reason) > api.MaxHoldReasonBytes:
		return fmt.Errorf("the reason is %d bytes; at most %d", len(s.Reason), api.MaxHoldReasonBytes)
	case len(s.By) > api.MaxHoldSelectorBytes:
		return fmt.Errorf("who is %d bytes; at most %d", len(s.By), api.MaxHoldSelectorBytes)
	}
	set := 0
	for _, v := range []string{s.Selector.Agent, s.Selector.Target, s.Selector.Tool} {
		if strings.TrimSpace(v) != "" {
			set++
		}
		if len(v) > api.MaxHoldSelectorBytes {
			return fmt.Errorf("a hold's selector is %d bytes; at most %d", len(v), api.MaxHoldSelectorBytes)
		}
	}
	if set != 1 {
		return errors.New("a hold names exactly one of an agent, a target or a tool")
	}
	return nil
}

// legacyMatches is the old api.HoldSelector.Matches: names compared as
// typed.
func legacyMatches(s api.HoldSelector, c api.HoldCheck) bool {
	switch {
	case s.Agent != "":
		return s.Agent == c.Agent
	case s.Tool != "":
		return s.Tool == c.Tool
	case s.Target != "":
		for _, t := range c.Targets {
			if t == s.Target || (!strings.Contains(s.Target, "#") && strings.HasPrefix(t, s.Target+"#")) {
				return true
			}
		}
	}
	return false
}

// upgradeState brings a legacy generation's holds to the current form for
// the next generation: each selector canonical, one hold per selector and
// sender (the newer kept), a hold whose selector no run could ever match
// dropped, and each dropped one in the audit; waiters heard from now, to
// be forgotten if they stay silent.
func (h *holds) upgradeState(ctx workflow.Context) {
	var kept []api.Hold
	for _, a := range h.state.Active {
		sel, err := a.Selector.Canonical()
		if err != nil {
			h.log(ctx, api.HoldReleased, api.HoldSignal{Selector: a.Selector, By: a.By, Reason: a.Reason, Channel: a.Channel},
				"dropped on upgrade: "+err.Error()+"; it held nothing")
			continue
		}
		a.Selector = sel
		kept = slices.DeleteFunc(kept, func(k api.Hold) bool { return k.Selector == sel && k.SameSender(a.By) })
		kept = append(kept, a)
	}
	h.state.Active = kept
	for i := range h.state.Waiters {
		if h.state.Waiters[i].Seen.IsZero() {
			h.state.Waiters[i].Seen = workflow.Now(ctx)
		}
	}
	h.legacy = false
}
