package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// updateAt sends a hold or release update at d into the holds workflow's
// life, and keeps its answer in *got.
func updateAt(t *testing.T, env *testsuite.TestWorkflowEnvironment, d time.Duration, name string, sig api.HoldSignal, got *api.HoldAnswer) {
	t.Helper()
	env.RegisterDelayedCallback(func() {
		env.UpdateWorkflow(name, "", &testsuite.TestUpdateCallback{
			OnReject: func(err error) { t.Errorf("update %s rejected: %v", name, err) },
			OnAccept: func() {},
			OnComplete: func(v any, err error) {
				require.NoError(t, err)
				*got = v.(api.HoldAnswer)
			},
		}, sig)
	}, d)
}

// Each hold and release is answered with what it did: the operator hears
// "refused" and "nothing to release", not "held" and "released".
func TestEveryHoldAndReleaseIsAnsweredWithWhatItDid(t *testing.T) {
	env := newHoldsEnv(t)
	env.OnSignalExternalWorkflow(mock.Anything, mock.Anything, "", api.SignalHoldsReleased, mock.Anything).Return(nil)
	checked := false
	for i := 0; i < api.MaxHolds-1; i++ {
		signalAt(env, time.Duration(i+1)*time.Second, api.SignalHold,
			api.HoldSignal{Selector: api.HoldSelector{Agent: fmt.Sprintf("agent-%d", i)}, By: "ops", Reason: "loop"})
	}
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	var placed, replaced, refused, others, released, nothing, bad api.HoldAnswer
	updateAt(t, env, time.Hour, api.UpdateHold, api.HoldSignal{Selector: api.HoldSelector{Agent: "PR-Review "}, By: "alice", Reason: "bad deploy"}, &placed)
	updateAt(t, env, time.Hour+time.Second, api.UpdateHold, api.HoldSignal{Selector: agent, By: "Alice", Reason: "worse deploy"}, &replaced)
	updateAt(t, env, time.Hour+2*time.Second, api.UpdateHold, api.HoldSignal{Selector: agent, By: "bob", Reason: "incident"}, &refused)
	updateAt(t, env, time.Hour+3*time.Second, api.UpdateRelease, api.HoldSignal{Selector: agent, By: "bob", Reason: "mine?"}, &others)
	updateAt(t, env, time.Hour+4*time.Second, api.UpdateRelease, api.HoldSignal{Selector: agent, By: "alice", Reason: "fixed"}, &released)
	updateAt(t, env, time.Hour+5*time.Second, api.UpdateRelease, api.HoldSignal{Selector: agent, By: "alice", Reason: "again"}, &nothing)
	updateAt(t, env, time.Hour+6*time.Second, api.UpdateHold, api.HoldSignal{Selector: api.HoldSelector{Target: "https://github.com/acme/widgets/pull/1"}, By: "alice", Reason: "x"}, &bad)
	env.RegisterDelayedCallback(func() {
		require.Equal(t, api.HoldOutcomePlaced, placed.Outcome)
		require.Equal(t, agent, placed.Selector, "kept in its one form")
		require.Equal(t, api.HoldOutcomeReplaced, replaced.Outcome, "a login's case is the same login")
		require.Equal(t, "replaces the hold placed by alice: bad deploy", replaced.Note)
		require.Equal(t, api.HoldOutcomeRefused, refused.Outcome)
		require.Equal(t, "refused: already 100 holds; release one first", refused.Note)
		require.Equal(t, api.HoldOutcomeNothingToRelease, others.Outcome)
		require.Equal(t, "nothing to release: no hold on agent pr-review by bob; held by Alice (a release with all lifts every hold on it)", others.Note)
		require.Len(t, others.Others, 1)
		require.Equal(t, api.HoldOutcomeReleased, released.Outcome)
		require.Equal(t, api.HoldOutcomeNothingToRelease, nothing.Outcome)
		require.Equal(t, "nothing to release: no hold on agent pr-review", nothing.Note)
		require.Equal(t, api.HoldOutcomeRefused, bad.Outcome)
		require.Contains(t, bad.Note, "not by URL")
		require.False(t, refused.Changed())
		require.True(t, replaced.Changed())
		view := queryHolds(t, env)
		require.Len(t, view.Active, api.MaxHolds-1)
		var actions []string
		for _, e := range view.Log[len(view.Log)-7:] {
			actions = append(actions, e.Action+" "+e.By)
		}
		require.Equal(t, []string{"hold alice", "hold Alice", "refused bob", "refused bob", "release alice", "refused alice", "refused alice"}, actions)
		checked = true
		env.CancelWorkflow()
	}, 2*time.Hour)
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	require.True(t, env.IsWorkflowCompleted())
	require.True(t, checked, "the holds workflow lived until the last check")
}

// A generation begun on the build before holds per operator keeps that
// build's rules for signals (a new build replays it: TestReplayHoldsHistories),
// and the first update it takes makes it continue as new under the current
// rules: holds canonical, one that could never match dropped and audited.
func TestAGenerationOfTheOlderBuildMovesToTheCurrentRulesAtItsFirstUpdate(t *testing.T) {
	env := newHoldsEnv(t)
	env.OnGetVersion(holdsPerOperator, workflow.DefaultVersion, 1).Return(workflow.DefaultVersion)
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	signalAt(env, time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "alice", Reason: "bad deploy"})
	signalAt(env, 2*time.Minute, api.SignalHold, api.HoldSignal{Selector: agent, By: "bob", Reason: "incident"})
	signalAt(env, 3*time.Minute, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Target: "Acme/Widgets "}, By: "carol", Reason: "frozen"})
	signalAt(env, 4*time.Minute, api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Target: "https://github.com/acme/widgets/pull/1"}, By: "dave", Reason: "url"})
	signalAt(env, 5*time.Minute, api.SignalHoldWaiter, api.HoldCheck{RunID: "run-1", Agent: api.DefaultAgent, Targets: []string{"acme/gadgets#1"}})
	env.RegisterDelayedCallback(func() {
		view := queryHolds(t, env)
		require.Len(t, view.Active, 3, "the older build's rules: bob's hold replaced alice's")
		require.Equal(t, "Acme/Widgets ", view.Active[1].Selector.Target)
	}, 6*time.Minute)
	var answer api.HoldAnswer
	updateAt(t, env, 7*time.Minute, api.UpdateHold, api.HoldSignal{Selector: agent, By: "erin", Reason: "me too"}, &answer)
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})
	require.True(t, env.IsWorkflowCompleted())
	require.Equal(t, api.HoldOutcomePlaced, answer.Outcome)
	var can *workflow.ContinueAsNewError
	require.ErrorAs(t, env.GetWorkflowError(), &can)
	var carried api.HoldsState
	require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &carried))
	var held []string
	for _, h := range carried.Active {
		held = append(held, h.Selector.String()+" by "+h.By)
	}
	require.Equal(t, []string{"agent pr-review by bob", "target acme/widgets by carol", "agent pr-review by erin"}, held)
	last := carried.Log[len(carried.Log)-1]
	require.Equal(t, "dave", last.By)
	require.Contains(t, last.Note, "dropped on upgrade")
	require.Len(t, carried.Waiters, 1)
	require.False(t, carried.Waiters[0].Seen.IsZero(), "a waiter carried is heard from, to be forgotten if it stays silent")
}
