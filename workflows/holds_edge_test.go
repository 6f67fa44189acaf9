package workflows

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// The holds are bounded: past MaxHolds a new hold is refused and audited,
// another operator's on a selector held included, while an operator's own
// hold on a selector replaces it.
func TestTheHoldsWorkflowRefusesAHoldPastItsBoundButReplacesOneHeld(t *testing.T) {
	env := newHoldsEnv(t)
	for i := 0; i < api.MaxHolds; i++ {
		signalAt(env, time.Duration(i+1)*time.Second, api.SignalHold,
			api.HoldSignal{Selector: api.HoldSelector{Agent: fmt.Sprintf("agent-%d", i)}, By: "ops", Reason: "loop"})
	}
	signalAt(env, time.Hour, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Tool: "one_too_many"}, By: "ops", Reason: "spam"})
	signalAt(env, time.Hour+time.Second, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Agent: "agent-1"}, By: "lead", Reason: "mine too"})
	signalAt(env, time.Hour+2*time.Second, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Agent: "agent-0"}, By: "OPS", Reason: "still looping"})
	runHoldsThenCheck(t, env, 2*time.Hour, func() {
		view := queryHolds(t, env)
		require.Len(t, view.Active, api.MaxHolds)
		for _, h := range view.Active {
			require.NotEqual(t, "one_too_many", h.Selector.Tool)
		}
		last := view.Active[len(view.Active)-1]
		require.Equal(t, api.HoldSelector{Agent: "agent-0"}, last.Selector)
		require.Equal(t, "still looping", last.Reason)
		require.Equal(t, "OPS", last.By)
		log := view.Log[len(view.Log)-3:]
		require.Equal(t, api.HoldRefused, log[0].Action)
		require.Equal(t, "refused: already 100 holds; release one first", log[0].Note)
		require.Equal(t, "one_too_many", log[0].Selector.Tool)
		require.Equal(t, api.HoldRefused, log[1].Action)
		require.Equal(t, "lead", log[1].By)
		require.Equal(t, api.HoldPlaced, log[2].Action)
		require.Equal(t, "replaces the hold placed by ops: loop", log[2].Note)
	})
}

// What is not a hold, a release or a waiter changes nothing: a malformed
// hold or release is refused in the audit, a waiter without a run is
// dropped, and a run that asks twice waits once.
func TestTheHoldsWorkflowRefusesMalformedSignalsAndKeepsOneWaiterPerRun(t *testing.T) {
	env := newHoldsEnv(t)
	var woken []string
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldsReleased, mock.Anything).Return(
		func(_, id, _, _ string, _ any) error { woken = append(woken, id); return nil })
	tool := api.HoldSelector{Tool: api.ToolCreateIssueComment}
	waiter := api.HoldCheck{RunID: "run-1", Tool: api.ToolCreateIssueComment}
	signalAt(env, time.Minute, api.SignalHold, api.HoldSignal{Selector: tool, By: "ops", Reason: "spam"})
	signalAt(env, 2*time.Minute, api.SignalHold, "hold everything")
	signalAt(env, 3*time.Minute, api.SignalRelease, []string{"release"})
	signalAt(env, 4*time.Minute, api.SignalHoldWaiter, "run-9")
	signalAt(env, 5*time.Minute, api.SignalHoldWaiter, api.HoldCheck{Tool: api.ToolCreateIssueComment})
	signalAt(env, 6*time.Minute, api.SignalHoldWaiter, waiter)
	signalAt(env, 7*time.Minute, api.SignalHoldWaiter, waiter)
	env.RegisterDelayedCallback(func() {
		view := queryHolds(t, env)
		require.Len(t, view.Active, 1, "a malformed release releases nothing")
		var notes []string
		for _, e := range view.Log {
			notes = append(notes, e.Action+": "+e.Note)
		}
		require.Equal(t, []string{"hold: ", "refused: refused: malformed hold signal", "refused: refused: malformed release signal"}, notes)
		require.Empty(t, woken)
	}, 8*time.Minute)
	signalAt(env, 9*time.Minute, api.SignalRelease, api.HoldSignal{Selector: tool, By: "ops", Reason: "fixed"})
	runHoldsThenCheck(t, env, 10*time.Minute, func() {
		require.Equal(t, []string{"run-1"}, woken, "one run, told once")
	})
}

// A refused hold's words may be too long to be a hold's: the audit keeps
// the first MaxHoldReasonBytes (MaxHoldSelectorBytes for who and the
// selector), cut on a rune boundary.
func TestARefusedHoldIsAuditedWithItsWordsCutToTheirBounds(t *testing.T) {
	env := newHoldsEnv(t)
	reason := "a" + strings.Repeat("é", api.MaxHoldReasonBytes) // every é is 2 bytes: the cut falls inside one
	by := strings.Repeat("o", api.MaxHoldSelectorBytes+1)
	agent := strings.Repeat("x", api.MaxHoldSelectorBytes+7)
	signalAt(env, time.Minute, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Agent: agent}, By: by, Reason: reason})
	exact := strings.Repeat("r", api.MaxHoldReasonBytes+1)
	signalAt(env, 2*time.Minute, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Tool: "t"}, By: "ops", Reason: exact})
	runHoldsThenCheck(t, env, 3*time.Minute, func() {
		view := queryHolds(t, env)
		require.Empty(t, view.Active)
		require.Len(t, view.Log, 2)
		e := view.Log[0]
		require.Equal(t, api.HoldRefused, e.Action)
		require.True(t, strings.HasPrefix(e.Note, "refused hold: the reason is"), e.Note)
		require.True(t, utf8.ValidString(e.Reason))
		require.Equal(t, reason[:api.MaxHoldReasonBytes-1], e.Reason, "cut before the rune the bound splits")
		require.Equal(t, by[:api.MaxHoldSelectorBytes], e.By)
		require.Equal(t, agent[:api.MaxHoldSelectorBytes], e.Selector.Agent)
		require.Equal(t, exact[:api.MaxHoldReasonBytes], view.Log[1].Reason, "exactly the bound is kept")
	})
}

func TestClipKeepsWhatFitsAndNeverSplitsARune(t *testing.T) {
	require.Equal(t, "abc", clip("abc", 3))
	require.Equal(t, "ab", clip("abc", 2))
	require.Equal(t, "a", clip("aé", 2))
	require.Equal(t, "aé", clip("aé", 3))
}

// Signals that arrive while the generation's last change is still being
// applied (here, while it tells a freed run) are applied before it
// continues as new, and carried: a hold placed then is never lost.
func TestTheHoldsWorkflowCarriesWhatArrivedWithItsLastChange(t *testing.T) {
	env := newHoldsEnv(t)
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldsReleased, mock.Anything).Return(nil).After(time.Second)
	hold := api.HoldSignal{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops", Reason: "incident"}
	for i := 0; i < maxHoldsChanges-1; i++ {
		signalAt(env, time.Duration(i+1)*time.Minute, api.SignalHold, hold)
	}
	env.RegisterDelayedCallback(func() {
		// A run no hold matches: the holds workflow tells it at once.
		env.SignalWorkflow(api.SignalHoldWaiter, api.HoldCheck{RunID: "run-free", Agent: "pr-review"})
		env.SignalWorkflow(api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Agent: "triage"}, By: "ops", Reason: "late"})
		env.SignalWorkflow(api.SignalHoldWaiter, api.HoldCheck{RunID: "run-7", Agent: "triage"})
	}, time.Duration(maxHoldsChanges)*time.Minute)
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	carried, _ := continuedAsNew(t, env)
	require.Len(t, carried.Active, 2)
	require.Equal(t, "late", carried.Active[1].Reason)
	require.Len(t, carried.Waiters, 1)
	require.Equal(t, api.HoldCheck{RunID: "run-7", Agent: "triage"}, carried.Waiters[0].HoldCheck)
}

// Two operators hold one agent for their own reasons: one's release lifts
// only that one's hold, and the run stays held by the other's.
func TestOneOperatorsReleaseLeavesAnothersHoldOnTheSameSelector(t *testing.T) {
	env := newHoldsEnv(t)
	var woken []string
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldsReleased, mock.Anything).Return(
		func(_, id, _, _ string, _ any) error { woken = append(woken, id); return nil })
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	signalAt(env, time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "alice", Reason: "bad deploy"})
	signalAt(env, 2*time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "bob", Reason: "security incident"})
	signalAt(env, 3*time.Minute, api.SignalHoldWaiter, api.HoldCheck{RunID: "run-1", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment})
	signalAt(env, 4*time.Minute, api.SignalRelease, api.HoldSignal{Selector: agent, By: "alice", Reason: "fixed"})
	env.RegisterDelayedCallback(func() {
		view := queryHolds(t, env)
		require.Len(t, view.Active, 1)
		require.Equal(t, "bob", view.Active[0].By)
		require.Equal(t, "security incident", view.Active[0].Reason)
		require.Equal(t, []string{"run-1"}, woken, "told to ask again, to show bob's hold rather than alice's")
		require.Equal(t, "releases the hold placed by alice: bad deploy; still held by bob", view.Log[len(view.Log)-1].Note)
	}, 5*time.Minute)
	// It asks again and waits on bob's hold.
	signalAt(env, 5*time.Minute+time.Second, api.SignalHoldWaiter, api.HoldCheck{RunID: "run-1", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment})
	signalAt(env, 6*time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "carol", Reason: "quota"})
	signalAt(env, 7*time.Minute, api.SignalRelease, api.HoldSignal{Selector: agent, By: "ops-lead", Reason: "all clear", All: true})
	runHoldsThenCheck(t, env, 8*time.Minute, func() {
		view := queryHolds(t, env)
		require.Empty(t, view.Active)
		require.Equal(t, "releases the holds placed by bob, carol", view.Log[len(view.Log)-1].Note, "a release of all names every hold it lifted")
		require.Equal(t, []string{"run-1", "run-1"}, woken, "no hold is left on the run")
	})
}

// Runs that ended while held never say so: a waiter not heard from for
// holdWaiterForgotten is dropped, so the list a generation carries holds
// only runs that still wait, however many ended meanwhile.
func TestTheHoldsWorkflowCarriesOnlyTheWaitersItStillHearsFrom(t *testing.T) {
	env := newHoldsEnv(t)
	hold := api.HoldSignal{Selector: api.HoldSelector{Agent: api.DefaultAgent}, By: "ops", Reason: "incident"}
	signalAt(env, time.Minute, api.SignalHold, hold)
	live := api.HoldCheck{RunID: "run-live", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment}
	for i := 1; i < maxHoldsChanges; i++ {
		at := time.Duration(i+1) * time.Minute
		if i%10 == 0 { // a run still held asks again every 10 minutes
			signalAt(env, at, api.SignalHoldWaiter, live)
			continue
		}
		// Each of these runs asks once, then ends (cancelled) while held.
		signalAt(env, at, api.SignalHoldWaiter, api.HoldCheck{RunID: fmt.Sprintf("run-%d", i), Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment})
	}
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	carried, can := continuedAsNew(t, env)
	require.Len(t, carried.Active, 1)
	// 30 minutes of runs at one a minute, and the live one.
	require.LessOrEqual(t, len(carried.Waiters), 31)
	require.True(t, slices.ContainsFunc(carried.Waiters, func(w api.HoldWaiter) bool { return w.RunID == "run-live" }), "the live run is kept")
	require.LessOrEqual(t, len(can.Input.GetPayloads()[0].GetData()), 8<<10, "what a generation carries stays small")
}
