package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

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
	runHoldsThenCheck(t, env, 2*time.Hour, func() {
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
	})
}

// Updates count toward a generation's changes as signals do: a run of
// holds and releases by update alone still continues as new before the
// history grows without bound, carrying the holds it left.
func TestAGenerationContinuesAsNewAfterItsBoundOfUpdates(t *testing.T) {
	env := newHoldsEnv(t)
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	answers := make([]api.HoldAnswer, maxHoldsChanges)
	for i := range answers {
		name := api.UpdateHold
		if i%2 == 1 {
			name = api.UpdateRelease
		}
		updateAt(t, env, time.Duration(i+1)*time.Minute, name, api.HoldSignal{Selector: agent, By: "ops", Reason: fmt.Sprint("change ", i)}, &answers[i])
	}
	env.ExecuteWorkflow(api.HoldsWorkflowName, api.HoldsState{})

	carried, _ := continuedAsNew(t, env)
	require.NotEmpty(t, carried.Log, "the audit is carried")
}
