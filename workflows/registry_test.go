package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// A user's own registry: the workflow runs any tool the same way, reads
// concurrently, actions under an operationKey with reconcile, optional tools
// degrading the run to partial.

// stampTool is an action whose effects the test counts by operationKey. It
// can lose its first response after doing the effect.
type stampTool struct {
	mu           sync.Mutex
	effects      map[string]int
	loseResponse int
	gate         bool
}

func (s *stampTool) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "stamp", Description: "Stamp the pull request.", SideEffect: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string","minLength":1}},"required":["word"],"additionalProperties":false}`)}
}

func (s *stampTool) Preview(c tools.Call) (string, error) { return "stamp " + string(c.Args), nil }
func (s *stampTool) Touches(c tools.Call) (string, error) {
	return c.Target.Owner + "/" + c.Target.Repo, nil
}

func (s *stampTool) Execute(_ context.Context, c tools.Call) (api.ToolOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.effects[c.OperationKey]++
	if s.loseResponse > 0 {
		s.loseResponse--
		return api.ToolOutput{}, errors.New("connection reset after the stamp was made")
	}
	return api.ToolOutput{Content: json.RawMessage(`{"stamped":true}`), ExternalID: "stamp-1"}, nil
}

func (s *stampTool) Reconcile(_ context.Context, c tools.Call) (api.ToolReconciliation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.effects[c.OperationKey] > 0 {
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: api.ToolOutput{Content: json.RawMessage(`{"stamped":true}`), ExternalID: "stamp-1"}}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
}

// readTool answers at once, or fails when it is broken. A waiting one
// answers only once its gate is open (or fails after a bound), and a
// gatekeeper opens the gate as it answers: the waiting read can succeed only
// if the two run at the same time.
type readTool struct {
	name       string
	broken     bool
	waitsFor   <-chan struct{}
	gatekeeper func()
}

func (r readTool) Spec() api.ToolSpec {
	return api.ToolSpec{Name: r.name, Description: "Read " + r.name + ".", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (r readTool) Execute(ctx context.Context, _ tools.Call) (api.ToolOutput, error) {
	if r.broken {
		return api.ToolOutput{}, tools.Rejected(r.name+" is down", nil)
	}
	if r.waitsFor != nil {
		select {
		case <-r.waitsFor:
		case <-time.After(5 * time.Second):
			return api.ToolOutput{}, tools.Rejected(r.name+": the other read never ran while this one did", nil)
		case <-ctx.Done():
			return api.ToolOutput{}, ctx.Err()
		}
	}
	if r.gatekeeper != nil {
		r.gatekeeper()
	}
	return api.ToolOutput{Content: json.RawMessage(`"` + r.name + `"`)}, nil
}

// scriptedModel asks for its turns in order, then answers "done".
type scriptedModel struct{ turns [][]api.ToolCall }

func (m *scriptedModel) Next(_ context.Context, conv []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	asked := 0
	for _, msg := range conv {
		if msg.Role == api.RoleAssistant {
			asked++
		}
	}
	if asked < len(m.turns) {
		return api.ModelDecision{ToolCalls: m.turns[asked]}, nil
	}
	return api.ModelDecision{Final: "done"}, nil
}

type customRun struct {
	env   *testsuite.TestWorkflowEnvironment
	stamp *stampTool
}

func newCustomRun(t *testing.T, agent tools.Agent, stamp *stampTool, turns ...[]api.ToolCall) *customRun {
	t.Helper()
	reg := tools.NewRegistry()
	gate := make(chan struct{})
	var open sync.Once
	require.NoError(t, reg.Add(readTool{name: "slow_read", waitsFor: gate}, tools.NeverAsk))
	require.NoError(t, reg.Add(readTool{name: "fast_read", gatekeeper: func() { open.Do(func() { close(gate) }) }}, tools.NeverAsk))
	require.NoError(t, reg.Add(readTool{name: "broken_read", broken: true}, tools.NeverAsk))
	require.NoError(t, reg.Add(stamp, tools.AgentDecides))
	require.NoError(t, reg.AddAgent(agent))
	var suite testsuite.WorkflowTestSuite
	env := newRunEnv(&suite, New(reg).AgentRun, &activities.Activities{Tools: reg, Model: &scriptedModel{turns: turns}})
	return &customRun{env: env, stamp: stamp}
}

func (r *customRun) run(t *testing.T, agent string) api.RunSnapshot {
	t.Helper()
	r.env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: agent,
		Approvers: []string{"alice"}, InlineConversationBytes: -1})
	require.True(t, r.env.IsWorkflowCompleted())
	return r.snapshot(t)
}

func (r *customRun) snapshot(t *testing.T) api.RunSnapshot {
	t.Helper()
	v, err := r.env.QueryWorkflow(api.QueryRun)
	require.NoError(t, err)
	var snap api.RunSnapshot
	require.NoError(t, v.Get(&snap))
	return snap
}

func call(id, name, args string) api.ToolCall {
	return api.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func TestReadsOfOneTurnRunTogetherAndJoinTheConversationInCallOrder(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "slow_read"}, {Name: "fast_read"}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, []api.ToolCall{call("a", "slow_read", `{}`), call("b", "fast_read", `{}`)})
	snap := r.run(t, "reader")

	require.NoError(t, r.env.GetWorkflowError())
	// slow_read answers only after fast_read has answered, so run one
	// after the other they would fail.
	for _, st := range snap.Steps {
		if st.Type == api.StepToolCall {
			require.Equal(t, api.StepSucceeded, st.Status, "%s: %s", st.ToolName, st.Error)
		}
	}
	conv, err := r.env.QueryWorkflow(api.QueryConversation, 0)
	require.NoError(t, err)
	var messages []api.Message
	require.NoError(t, conv.Get(&messages))
	var results []string
	for _, m := range messages {
		if m.Role == api.RoleTool {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
	}
	require.Equal(t, []string{`a="slow_read"`, `b="fast_read"`}, results, "in call order, though b finished first")
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome)
}

func TestAnActionWithoutApprovalStillRunsOnceUnderItsOperationKeyAfterALostResponse(t *testing.T) {
	stamp := &stampTool{effects: map[string]int{}, loseResponse: 1}
	agent := tools.Agent{Name: "stamper", Tools: []tools.AgentTool{{Name: "stamp", Ask: false}}}
	r := newCustomRun(t, agent, stamp, []api.ToolCall{call("s", "stamp", `{"word":"ok"}`)})

	snap := r.run(t, "stamper")

	require.NoError(t, r.env.GetWorkflowError())
	require.Empty(t, snap.Actions, "NeverAsk for this agent: nobody was asked")
	require.Len(t, stamp.effects, 1)
	for key, n := range stamp.effects {
		require.Equal(t, 1, n, "the effect happened exactly once under %s", key)
		require.Equal(t, testRunID+":2", key)
	}
	st := snap.Steps[len(snap.Steps)-2]
	require.Equal(t, "stamp", st.ToolName)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, "stamp-1", st.ExternalResourceID)
}

func TestAnOptionalToolThatFailsLeavesTheRunCompletedButPartial(t *testing.T) {
	agent := tools.Agent{Name: "degrades", Tools: []tools.AgentTool{{Name: "broken_read", Optional: true}, {Name: "fast_read"}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, []api.ToolCall{call("x", "broken_read", `{}`)})

	snap := r.run(t, "degrades")

	require.NoError(t, r.env.GetWorkflowError())
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.OutcomePartial, snap.Run.Outcome)
	require.Len(t, snap.Outcome.Failed, 1)
	require.Equal(t, "broken_read", snap.Outcome.Failed[0].What)
}

func TestARunNamingAnUnknownAgentFailsSayingWhichAgentsTheWorkerServes(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}})

	snap := r.run(t, "ghost")

	require.Error(t, r.env.GetWorkflowError())
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Equal(t, `unknown agent "ghost" (this worker serves reader)`, snap.Run.Error)
}

func TestACallOfAToolTheAgentWasNotGivenIsRefusedAndNothingRuns(t *testing.T) {
	stamp := &stampTool{effects: map[string]int{}}
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	r := newCustomRun(t, agent, stamp, []api.ToolCall{call("s", "stamp", `{"word":"sneaky"}`)})

	snap := r.run(t, "reader")

	require.NoError(t, r.env.GetWorkflowError())
	require.Empty(t, stamp.effects, "a registered tool the agent lacks is unknown to its runs")
	require.Equal(t, `unknown tool "stamp"`, snap.Steps[1].Error)
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome, "a refused call is the model's mistake, not a degraded run")
}

// twoStamps is one turn that asks for two approved stamps.
var twoStamps = []api.ToolCall{call("s1", "stamp", `{"word":"one"}`), call("s2", "stamp", `{"word":"two"}`)}

// whenBothWait runs decide once both actions of twoStamps wait, with them.
func (r *customRun) whenBothWait(t *testing.T, decide func(first, second api.PendingAction)) {
	r.env.RegisterDelayedCallback(func() {
		snap := r.snapshot(t)
		require.Len(t, snap.Actions, 2, "both actions of the turn are proposed at once")
		for _, pa := range snap.Actions {
			require.Equal(t, api.ActionWaiting, pa.State)
		}
		require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
		decide(snap.Actions[0], snap.Actions[1])
	}, time.Minute)
}

func (r *customRun) decide(sig api.ApprovalSignal) {
	sig.Approver = "alice"
	r.env.SignalWorkflow(api.SignalApproval, sig)
}

// newTwoStampRun is a run of the agent name, which may stamp only after
// approval (of each stamp, or of both at once with batch), and whose model
// asks for two stamps in one turn.
func newTwoStampRun(t *testing.T, name string, batch bool) *customRun {
	t.Helper()
	agent := tools.Agent{Name: name, BatchApproval: batch, Tools: []tools.AgentTool{{Name: "stamp", Ask: true}}}
	return newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, twoStamps)
}

func requireStamped(t *testing.T, stamp *stampTool, n int) {
	t.Helper()
	require.Len(t, stamp.effects, n)
	for key, count := range stamp.effects {
		require.Equal(t, 1, count, "once under %s", key)
	}
}

func TestTwoActionsOfOneTurnWaitTogetherAndRunInCallOrderWhateverOrderTheyAreApprovedIn(t *testing.T) {
	r := newTwoStampRun(t, "stamper", false)
	r.whenBothWait(t, func(first, second api.PendingAction) {
		r.decide(api.ApprovalSignal{ActionID: second.ID, Decision: api.DecisionApprove, ArgsHash: second.ArgsHash})
		r.decide(api.ApprovalSignal{ActionID: first.ID, Decision: api.DecisionApprove})
	})

	snap := r.run(t, "stamper")

	require.NoError(t, r.env.GetWorkflowError())
	requireStamped(t, r.stamp, 2)
	var done []string
	for _, st := range snap.Steps {
		if st.ToolName == "stamp" && st.Type == api.StepToolCall {
			require.Equal(t, api.StepSucceeded, st.Status)
			done = append(done, st.CallID)
		}
	}
	require.Equal(t, []string{"s1", "s2"}, done)
}

func TestOneBatchDecisionCoversTheActionsItNamesByTheirArgsHashes(t *testing.T) {
	r := newTwoStampRun(t, "batcher", true)
	r.whenBothWait(t, func(first, second api.PendingAction) {
		r.decide(api.ApprovalSignal{ActionID: first.ID, ArgsHash: first.ArgsHash, Decision: api.DecisionApprove,
			Batch: []api.ActionRef{{ActionID: second.ID, ArgsHash: second.ArgsHash}}})
	})

	snap := r.run(t, "batcher")

	require.NoError(t, r.env.GetWorkflowError())
	requireStamped(t, r.stamp, 2)
	for _, pa := range snap.Actions {
		require.Equal(t, api.ActionApproved, pa.State)
		require.Equal(t, "alice", pa.DecidedBy)
	}
}

func TestABatchThatIsNotExactlyWhatWaitsAppliesNothing(t *testing.T) {
	cases := map[string]struct {
		batchAgent bool
		batch      func(first, second api.PendingAction) api.ApprovalSignal
		why        string
	}{
		"an agent without batch approval": {false, func(first, second api.PendingAction) api.ApprovalSignal {
			return api.ApprovalSignal{ActionID: first.ID, ArgsHash: first.ArgsHash, Batch: []api.ActionRef{{ActionID: second.ID, ArgsHash: second.ArgsHash}}}
		}, "takes one decision per action, not a batch"},
		"another input's argsHash": {true, func(first, second api.PendingAction) api.ApprovalSignal {
			return api.ApprovalSignal{ActionID: first.ID, ArgsHash: first.ArgsHash, Batch: []api.ActionRef{{ActionID: second.ID, ArgsHash: first.ArgsHash}}}
		}, "is not the action's input"},
		"the first action without its argsHash": {true, func(first, second api.PendingAction) api.ApprovalSignal {
			return api.ApprovalSignal{ActionID: first.ID, Batch: []api.ActionRef{{ActionID: second.ID, ArgsHash: second.ArgsHash}}}
		}, "is not the action's input"},
		"an action twice": {true, func(first, second api.PendingAction) api.ApprovalSignal {
			return api.ApprovalSignal{ActionID: first.ID, ArgsHash: first.ArgsHash, Batch: []api.ActionRef{{ActionID: first.ID, ArgsHash: first.ArgsHash}}}
		}, "twice"},
		"an unknown action": {true, func(first, second api.PendingAction) api.ApprovalSignal {
			return api.ApprovalSignal{ActionID: first.ID, ArgsHash: first.ArgsHash, Batch: []api.ActionRef{{ActionID: "act-0000000000000000", ArgsHash: second.ArgsHash}}}
		}, "unknown action"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := newTwoStampRun(t, "batcher", tc.batchAgent)
			r.whenBothWait(t, func(first, second api.PendingAction) {
				sig := tc.batch(first, second)
				sig.Decision = api.DecisionApprove
				r.decide(sig)
			})

			snap := r.run(t, "batcher")

			require.NoError(t, r.env.GetWorkflowError())
			require.Empty(t, r.stamp.effects, "nothing approved, nothing done")
			for _, pa := range snap.Actions {
				require.Equal(t, api.ActionExpired, pa.State)
			}
			v, err := r.env.QueryWorkflow(api.QueryEvents, int64(0))
			require.NoError(t, err)
			var events []api.Event
			require.NoError(t, v.Get(&events))
			ignored := eventsWith(events, func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
			require.Len(t, ignored, 1)
			require.Contains(t, ignored[0].Detail, tc.why)
		})
	}
}

func TestADecisionNamingAnotherInputThanTheActionsIsIgnored(t *testing.T) {
	r := newTwoStampRun(t, "stamper", false)
	r.whenBothWait(t, func(first, second api.PendingAction) {
		r.decide(api.ApprovalSignal{ActionID: first.ID, ArgsHash: second.ArgsHash, Decision: api.DecisionApprove})
	})

	snap := r.run(t, "stamper")

	require.NoError(t, r.env.GetWorkflowError())
	require.Empty(t, r.stamp.effects)
	require.Equal(t, api.ActionExpired, snap.Actions[0].State)
}
