package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

func newHoldsEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(builtin.Holds, workflow.RegisterOptions{Name: api.HoldsWorkflowName})
	return env
}

func queryHolds(t *testing.T, env *testsuite.TestWorkflowEnvironment) api.HoldsView {
	t.Helper()
	v, err := env.QueryWorkflow(api.QueryHolds)
	require.NoError(t, err)
	var view api.HoldsView
	require.NoError(t, v.Get(&view))
	return view
}

// signalAt sends sig at d into the holds workflow's life.
// runHoldsThenCheck runs the holds workflow, makes the test's last check
// at d into its life, then cancels it; the test fails unless that check ran.
func runHoldsThenCheck(t *testing.T, env *testsuite.TestWorkflowEnvironment, d time.Duration, check func()) {
	t.Helper()
	checked := false
	env.RegisterDelayedCallback(func() {
		check()
		checked = true
		env.CancelWorkflow()
	}, d)
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	require.True(t, env.IsWorkflowCompleted())
	require.True(t, checked, "the holds workflow lived until the last check")
}

// continuedAsNew is the state the holds workflow's generation handed the
// next, and its continue-as-new; the test fails unless it continued as new.
func continuedAsNew(t *testing.T, env *testsuite.TestWorkflowEnvironment) (api.HoldsState, *workflow.ContinueAsNewError) {
	t.Helper()
	require.True(t, env.IsWorkflowCompleted())
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var carried api.HoldsState
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &carried))
	return carried, can
}

func signalAt(env *testsuite.TestWorkflowEnvironment, d time.Duration, name string, sig any) {
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(name, sig) }, d)
}

func TestTheHoldsWorkflowWakesAWaitingRunOnlyWhenNoHoldMatchesItAndAuditsEveryChange(t *testing.T) {
	env := newHoldsEnv(t)
	var woken []string
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldsReleased, mock.Anything).Return(
		func(_, id, _, _ string, _ any) error { woken = append(woken, id); return nil })
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	tool := api.HoldSelector{Tool: api.ToolCreateIssueComment}
	waiter := api.HoldCheck{RunID: "run-1", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment, Targets: []string{"acme/widgets#1"}}
	signalAt(env, time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "ops", Reason: "loop"})
	signalAt(env, 2*time.Minute, api.SignalHold, api.HoldSignal{Selector: tool, By: "ops", Reason: "spam"})
	signalAt(env, 3*time.Minute, api.SignalHoldWaiter, waiter)
	// The lead lifts the on-call's holds: all, since they are not the lead's.
	signalAt(env, 4*time.Minute, api.SignalRelease, api.HoldSignal{Selector: agent, By: "lead", Reason: "fixed", All: true})
	env.RegisterDelayedCallback(func() {
		require.Equal(t, []string{"run-1"}, woken, "told to ask again: the hold it showed is gone, though the tool's still matches it")
		view := queryHolds(t, env)
		require.Len(t, view.Active, 1)
		require.Equal(t, tool, view.Active[0].Selector)
	}, 5*time.Minute)
	// It asks again, finds the tool's hold, and waits on it.
	signalAt(env, 5*time.Minute+time.Second, api.SignalHoldWaiter, waiter)
	signalAt(env, 6*time.Minute, api.SignalRelease, api.HoldSignal{Selector: tool, By: "lead", Reason: "fixed too", All: true})
	// Refused: no reason; two selectors; nothing held on it.
	signalAt(env, 7*time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "ops"})
	signalAt(env, 8*time.Minute, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Agent: "a", Tool: "b"}, By: "ops", Reason: "x"})
	signalAt(env, 9*time.Minute, api.SignalRelease, api.HoldSignal{Selector: agent, By: "ops", Reason: "again"})
	// A waiter whose hold was released before it asked is woken at once.
	signalAt(env, 10*time.Minute, api.SignalHoldWaiter, api.HoldCheck{RunID: "run-2", Agent: "triage"})
	runHoldsThenCheck(t, env, 11*time.Minute, func() {
		require.Equal(t, []string{"run-1", "run-1", "run-2"}, woken)
		view := queryHolds(t, env)
		require.Empty(t, view.Active)
		var actions []string
		for _, e := range view.Log {
			actions = append(actions, e.Action+" "+e.By)
		}
		require.Equal(t, []string{"hold ops", "hold ops", "release lead", "release lead", "refused ops", "refused ops", "refused ops"}, actions)
		require.Equal(t, "loop", view.Log[0].Reason)
		require.Equal(t, time.Minute, view.Log[1].At.Sub(view.Log[0].At))
		require.True(t, strings.HasPrefix(view.Log[6].Note, "nothing to release"), view.Log[6].Note)
	})
}

func TestTheHoldsWorkflowContinuesAsNewWithItsHoldsAndWaitersAfterMaxChanges(t *testing.T) {
	env := newHoldsEnv(t)
	hold := api.HoldSignal{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "ops", Reason: "incident"}
	signalAt(env, time.Second, api.SignalHold, hold)
	signalAt(env, 2*time.Second, api.SignalHoldWaiter, api.HoldCheck{RunID: "run-1", Targets: []string{"acme/widgets#3"}})
	for i := 2; i < maxHoldsChanges; i++ {
		// The same hold again replaces itself: one active hold, a logged change.
		signalAt(env, time.Duration(i+1)*time.Second, api.SignalHold, hold)
	}
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	carried, _ := continuedAsNew(t, env)
	require.Len(t, carried.Active, 1)
	require.Equal(t, "incident", carried.Active[0].Reason)
	require.Len(t, carried.Waiters, 1)
	require.Len(t, carried.Log, api.MaxHoldLog)
}
