package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// A batch is one decision: these attack it with one part that cannot apply
// (decided, expired, repeated, a refused decider) and check that no other
// part applied and that the refusal is recorded once, naming the batch.

// stampTurns asks for one stamp per turn, so that each action waits alone.
var stampTurns = [][]api.ToolCall{{call("s1", "stamp", `{"word":"one"}`)}, {call("s2", "stamp", `{"word":"two"}`)}}

func newBatchRun(t *testing.T, turns ...[]api.ToolCall) *customRun {
	t.Helper()
	agent := tools.Agent{Name: "batcher", BatchApproval: true, Tools: []tools.AgentTool{{Name: "stamp", Ask: true}}}
	return newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, turns...)
}

// runBatch runs the batcher with approvers (none: GitHub's permission decides).
func (r *customRun) runBatch(t *testing.T, approvers ...string) api.RunSnapshot {
	t.Helper()
	r.env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: "batcher",
		Approvers: approvers, ApprovalTimeout: time.Hour, InlineConversationBytes: -1})
	require.True(t, r.env.IsWorkflowCompleted())
	require.NoError(t, r.env.GetWorkflowError())
	return r.snapshot(t)
}

// deciderCanWrite answers every permission check of r's deciders: write.
func (r *customRun) deciderCanWrite() *testsuite.MockCallWrapper {
	return r.env.OnActivity(api.ActivityCheckRepoPermission, mock.Anything, mock.Anything).
		Return(api.RepoPermission{Permission: "write"}, nil)
}

func (r *customRun) ignoredDetails(t *testing.T) []string {
	t.Helper()
	v, err := r.env.QueryWorkflow(api.QueryEvents, int64(0))
	require.NoError(t, err)
	var events []api.Event
	require.NoError(t, v.Get(&events))
	return ignoredDetails(events)
}

// at runs fn after d with the run's actions.
func (r *customRun) at(t *testing.T, d time.Duration, fn func(actions []api.PendingAction)) {
	r.env.RegisterDelayedCallback(func() { fn(r.snapshot(t).Actions) }, d)
}

func batchOf(decision string, actions []api.PendingAction) api.ApprovalSignal {
	sig := api.ApprovalSignal{ActionID: actions[0].ID, ArgsHash: actions[0].ArgsHash, Decision: decision, Approver: "alice", Reason: "batch"}
	for _, pa := range actions[1:] {
		sig.Batch = append(sig.Batch, api.ActionRef{ActionID: pa.ID, ArgsHash: pa.ArgsHash})
	}
	return sig
}

func TestABatchNamingAnActionAlreadyRejectedApprovesNoOtherPart(t *testing.T) {
	r := newBatchRun(t, stampTurns...)
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 1)
		r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionReject, Reason: "not that word"})
	})
	r.at(t, 2*time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2, "the second turn's stamp waits")
		require.Equal(t, api.ActionWaiting, actions[1].State)
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions))
	})

	snap := r.runBatch(t, "alice")

	require.Empty(t, r.stamp.effects, "the batch approved nothing, so nothing was stamped")
	require.Equal(t, api.ActionRejected, snap.Actions[0].State)
	require.Equal(t, api.ActionExpired, snap.Actions[1].State, "the waiting part was not approved by the batch")
	details := r.ignoredDetails(t)
	require.Len(t, details, 1, "one refusal, for the whole batch")
	require.Contains(t, details[0], "batch approve by alice not applied: action "+snap.Actions[0].ID+": approve by alice: the action was already rejected by them at ")
}

func TestABatchNamingAnExpiredActionApprovesNoOtherPart(t *testing.T) {
	r := newBatchRun(t, stampTurns...)
	r.at(t, 2*time.Hour, func(actions []api.PendingAction) {
		require.Len(t, actions, 2, "the first stamp expired and the second waits")
		require.Equal(t, api.ActionExpired, actions[0].State)
		require.Equal(t, api.ActionWaiting, actions[1].State)
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions))
	})

	snap := r.runBatch(t, "alice")

	require.Empty(t, r.stamp.effects)
	require.Equal(t, api.ActionExpired, snap.Actions[1].State)
	require.Empty(t, snap.Actions[1].DecidedBy)
	details := r.ignoredDetails(t)
	require.Len(t, details, 1)
	require.Contains(t, details[0], "batch approve by alice not applied: action "+snap.Actions[0].ID+": approve by alice: the action expired at ")
}

func TestABatchRepeatingARequestOneOfItsActionsAlreadySawAppliesNoPart(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2)
		// Refused (a reject needs a reason), and remembered as refused.
		r.decide(api.ApprovalSignal{ActionID: actions[1].ID, Decision: api.DecisionReject, RequestID: "r1", Channel: "page"})
		sig := batchOf(api.DecisionApprove, actions)
		sig.RequestID, sig.Channel = "r1", "page"
		r.env.SignalWorkflow(api.SignalApproval, sig)
	})

	snap := r.runBatch(t, "alice")

	require.Empty(t, r.stamp.effects)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionExpired, pa.State)
	}
	details := r.ignoredDetails(t)
	require.Len(t, details, 2, "the reject without a reason, then the batch")
	require.Contains(t, details[1], `batch approve by alice not applied: repeated request "r1" on action `+snap.Actions[1].ID)
}

func TestABatchBySomeoneNotAnApproverIsRefusedOnceAndAppliesNoPart(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		sig := batchOf(api.DecisionApprove, actions)
		sig.Approver = "mallory"
		r.env.SignalWorkflow(api.SignalApproval, sig)
	})

	snap := r.runBatch(t, "alice")

	require.Empty(t, r.stamp.effects)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionExpired, pa.State)
	}
	require.Equal(t, []string{"batch approve by mallory not applied: action " + snap.Actions[0].ID + ": mallory is not an approver of this run"},
		r.ignoredDetails(t))
}

// On a run without approvers, a batch waits for its decider's permission
// check as one decision: a part settled while it waits stops every part.
func TestAQueuedBatchWhosePartWasRejectedWhileItWaitedAppliesNoPart(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2)
		r.decide(api.ApprovalSignal{ActionID: actions[1].ID, Decision: api.DecisionReject, Reason: "not that word"})
		r.env.SignalWorkflow(api.SignalApproval, batchOf(api.DecisionApprove, actions))
	})

	snap := r.runBatch(t)

	require.Empty(t, r.stamp.effects, "the first stamp was not approved by the batch")
	require.Equal(t, api.ActionRejected, snap.Actions[1].State)
	require.Equal(t, api.ActionExpired, snap.Actions[0].State)
	details := r.ignoredDetails(t)
	require.Len(t, details, 1)
	require.Contains(t, details[0], "batch approve by alice not applied: action "+snap.Actions[1].ID+": approve by alice: the action was already rejected by them at ")
	require.Len(t, permissionSteps(snap), 1, "the reject's: the batch is refused before GitHub is asked")
}

func TestAQueuedBatchWithEveryPartWaitingAppliesWholeAfterOneCheck(t *testing.T) {
	r := newBatchRun(t, twoStamps)
	r.deciderCanWrite()
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		// A request ID, as every channel sends: the batch remembers it as it
		// arrives, and must not take itself for a repeat after the check.
		sig := batchOf(api.DecisionApprove, actions)
		sig.RequestID, sig.Channel = "r1", "page"
		r.env.SignalWorkflow(api.SignalApproval, sig)
	})

	snap := r.runBatch(t)

	requireStamped(t, r.stamp, 2)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionApproved, pa.State)
	}
	require.Len(t, permissionSteps(snap), 1)
	require.Empty(t, r.ignoredDetails(t))
}
