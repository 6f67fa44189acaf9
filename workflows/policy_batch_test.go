package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// A batch on a run without approvers waits in the queue for one check of
// its decider (policy.go): these attack what it binds to while it waits, a
// replay of its request, a batch of actions the run is not waiting on yet,
// and the awaited action's timer.

// threeStamps is one turn that asks for three approved stamps.
var threeStamps = []api.ToolCall{call("s1", "stamp", `{"word":"one"}`), call("s2", "stamp", `{"word":"two"}`), call("s3", "stamp", `{"word":"three"}`)}

// A channel that sends a batch again (a retry after a lost answer) gets the
// replay recorded as a repeat of the request the batch already took, as it
// arrives: no second check, and both actions run once.
func TestAReplayedQueuedBatchIsRecordedAsARepeatAndAppliesOnce(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2)
		sig := batchOf(api.DecisionApprove, actions)
		sig.RequestID, sig.Channel = "r1", "page"
		r.env.SignalWorkflow(api.SignalApproval, sig)
		r.env.SignalWorkflow(api.SignalApproval, sig)
	})

	snap := r.runBatch(t)

	requireStamped(t, r.stamp, 2)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionApproved, pa.State)
		require.Equal(t, []string{api.RequestKey("page", "alice", "r1")}, pa.RequestKeys, "the batch's request is remembered on every part")
	}
	require.Len(t, permissionSteps(snap), 1, "the replay cost no second check")
	require.Equal(t, []string{`batch approve by alice not applied: repeated request "r1" on action ` + snap.Actions[0].ID},
		r.ignoredDetails(t))
}

// A batch of the later actions of a turn, sent with a decision on the
// first, stays queued while the first is settled and applies once the run
// waits on them: every action runs once, none expires.
func TestABatchOfTheTurnsLaterActionsWaitsInTheQueueForTheirTurn(t *testing.T) {
	r := newBatchRun(t, threeStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 3, "the turn's three stamps wait together")
		r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionApprove})
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions[1:]))
	})

	snap := r.runBatch(t)

	requireStamped(t, r.stamp, 3)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionApproved, pa.State)
		require.Equal(t, "alice", pa.DecidedBy)
	}
	require.Len(t, permissionSteps(snap), 2, "one check for the single decision, one for the batch")
	require.Empty(t, r.ignoredDetails(t))
}

// A batch that does not name the action the run waits on is not raced
// against that action's timer: its decider's check runs to its answer,
// and the batch is then judged on its own actions' deadlines, which is
// what its refusal names.
func TestABatchNotNamingTheAwaitedActionIsJudgedOnItsOwnActions(t *testing.T) {
	r := newBatchRun(t, threeStamps)
	r.deciderCanWrite().After(2 * time.Hour)
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 3)
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions[1:]))
	})

	snap := r.runBatch(t)

	require.Empty(t, r.stamp.effects)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionExpired, pa.State)
		require.Empty(t, pa.DecidedBy)
	}
	checks := permissionSteps(snap)
	require.Len(t, checks, 1)
	require.Equal(t, api.StepSucceeded, checks[0].Status, "GitHub's answer was waited for")
	details := r.ignoredDetails(t)
	require.Len(t, details, 1)
	require.Contains(t, details[0], "batch approve by alice not applied: action "+snap.Actions[1].ID+": approve by alice: the action expired at ")
	require.NotContains(t, details[0], snap.Actions[0].ID, "the batch never named the awaited action")
}

// Decisions on each action of a turn, sent at once and queued for their
// deciders' checks, each apply at their action's turn: the second stays
// queued while the first is settled.
func TestQueuedDecisionsOnEachActionOfATurnEachApplyInTheirTurn(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2)
		for _, pa := range actions {
			r.decide(api.ApprovalSignal{ActionID: pa.ID, Decision: api.DecisionApprove})
		}
	})

	snap := r.runBatch(t)

	requireStamped(t, r.stamp, 2)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionApproved, pa.State)
		require.Equal(t, "alice", pa.DecidedBy)
	}
	require.Len(t, permissionSteps(snap), 2)
	require.Empty(t, r.ignoredDetails(t))
}

// A queued batch naming an action that an earlier queued decision settled
// is dropped whole once the run moves on, saying why: its other action is
// not approved by it.
func TestAQueuedBatchWhosePartAnEarlierDecisionSettledIsDroppedSayingSo(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2)
		r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionReject, Reason: "not that word"})
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions))
	})

	snap := r.runBatch(t)

	require.Empty(t, r.stamp.effects)
	require.Equal(t, api.ActionRejected, snap.Actions[0].State)
	require.Equal(t, api.ActionExpired, snap.Actions[1].State, "the batch did not approve the other stamp")
	require.Equal(t, []string{"batch approve by alice was not applied: an action it names was settled first"}, r.ignoredDetails(t))
	require.Len(t, permissionSteps(snap), 1, "the reject's: the batch was never checked")
}

// A batch covers at most api.MaxBatch actions: a batch of exactly that many
// applies whole; one more and it applies to none.
func TestABatchCoversAtMostMaxBatchActions(t *testing.T) {
	var turn []api.ToolCall
	for i := 0; i <= api.MaxBatch; i++ {
		turn = append(turn, call(fmt.Sprintf("s%d", i), "stamp", fmt.Sprintf(`{"word":"w%d"}`, i)))
	}
	for name, n := range map[string]int{"at the bound": api.MaxBatch, "one over": api.MaxBatch + 1} {
		t.Run(name, func(t *testing.T) {
			r := newBatchRun(t, turn)
			r.at(t, time.Minute, func(actions []api.PendingAction) {
				require.Len(t, actions, api.MaxBatch+1, "the turn's stamps wait together")
				r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions[:n]))
			})

			snap := r.runBatch(t, "alice")

			if n <= api.MaxBatch {
				requireStamped(t, r.stamp, n)
				for i, pa := range snap.Actions {
					require.Equal(t, i < n, pa.State == api.ActionApproved, "action %d: %s", i, pa.State)
				}
				require.Empty(t, r.ignoredDetails(t))
				return
			}
			require.Empty(t, r.stamp.effects)
			require.Equal(t, []string{fmt.Sprintf("batch approve by alice not applied: a batch covers at most %d actions, not %d", api.MaxBatch, n)},
				r.ignoredDetails(t))
		})
	}
}
