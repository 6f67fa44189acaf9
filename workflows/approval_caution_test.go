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

// What an approver is shown of actions in doubt (caution): every action of
// this run, or of the run it follows up, whose effect may exist on the
// target the decision is about, and none on another target.

// pinTool pins a word on the target its call names ("on"), so that calls of
// one run touch different targets. Its board cannot be listed: a look
// never tells whether a pin was made. It can lose its first responses after
// making the pin.
type pinTool struct {
	mu           sync.Mutex
	effects      map[string]int
	loseResponse int
	// schema replaces the tool's argument schema when set.
	schema json.RawMessage
}

const pinSchema = `{"type":"object","properties":{"on":{"type":"string","minLength":1},"word":{"type":"string","minLength":1}},"required":["on","word"],"additionalProperties":false}`

func (p *pinTool) Spec() api.ToolSpec {
	schema := json.RawMessage(pinSchema)
	if p.schema != nil {
		schema = p.schema
	}
	return api.ToolSpec{Name: "pin", Description: "Pin a word on a target.", SideEffect: true, Parameters: schema}
}

func (p *pinTool) Preview(c tools.Call) (string, error) { return "pin " + string(c.Args), nil }

func (p *pinTool) Touches(c tools.Call) (string, error) {
	var args struct {
		On string `json:"on"`
	}
	if err := json.Unmarshal(c.Args, &args); err != nil {
		return "", err
	}
	return args.On, nil
}

func (p *pinTool) Execute(_ context.Context, c tools.Call) (api.ToolOutput, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.effects[c.OperationKey]++
	if p.loseResponse > 0 {
		p.loseResponse--
		return api.ToolOutput{}, errors.New("connection reset after the pin was made")
	}
	return api.ToolOutput{Content: json.RawMessage(`{"pinned":true}`), ExternalID: "pin-" + c.OperationKey}, nil
}

func (p *pinTool) Reconcile(context.Context, tools.Call) (api.ToolReconciliation, error) {
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: "the pin board cannot be listed"}, nil
}

func pinCall(id, on, word string) api.ToolCall {
	args, _ := json.Marshal(map[string]string{"on": on, "word": word})
	return call(id, "pin", string(args))
}

// newPinRun is a run of agent "pinner", whose pins wait for approval, with
// pin as its only tool and a model that asks for turns in order.
func newPinRun(t *testing.T, suite *testsuite.WorkflowTestSuite, pin *pinTool, turns ...[]api.ToolCall) *customRun {
	t.Helper()
	if pin.effects == nil {
		pin.effects = map[string]int{}
	}
	reg := tools.NewRegistry()
	require.NoError(t, reg.Add(pin, tools.AgentDecides))
	require.NoError(t, reg.AddAgent(tools.Agent{Name: "pinner", Tools: []tools.AgentTool{{Name: "pin", Ask: true}}}))
	env := newRunEnv(suite, New(reg).AgentRun, &activities.Activities{Tools: reg, Model: &scriptedModel{turns: turns}})
	return &customRun{env: env}
}

func (r *customRun) runPinner(t *testing.T, approvers ...string) api.RunSnapshot {
	t.Helper()
	r.env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Agent: "pinner",
		Approvers: approvers, ApprovalTimeout: 3 * time.Hour, ToolTimeout: 5 * time.Second, InlineConversationBytes: -1})
	require.True(t, r.env.IsWorkflowCompleted())
	require.NoError(t, r.env.GetWorkflowError())
	return r.snapshot(t)
}

// This run's own pin, abandoned by an operator after a lost answer and a
// look that could not tell, may be on acme/widgets#1: the approver of the
// next pin there is told so, under its operationKey; the approver of a pin
// on acme/widgets#2 is not.
func TestAnApproverIsCautionedOfThisRunsActionInDoubtOnTheSameTargetOnly(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	pin := &pinTool{loseResponse: 1}
	r := newPinRun(t, &suite, pin,
		[]api.ToolCall{pinCall("p1", "acme/widgets#1", "first")},
		[]api.ToolCall{pinCall("p2", "acme/widgets#2", "elsewhere"), pinCall("p3", "acme/widgets#1", "again")},
	)
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 1)
		require.Empty(t, actions[0].Caution, "nothing is in doubt yet")
		r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionApprove})
	})
	var doubted api.AgentStep
	r.env.RegisterDelayedCallback(func() {
		snap := r.snapshot(t)
		require.NotEmpty(t, snap.AwaitingResolve, "the look could not tell: an operator must say")
		for _, st := range snap.Steps {
			if st.ID == snap.AwaitingResolve {
				doubted = st
			}
		}
		r.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: snap.AwaitingResolve, Decision: api.ResolveAbandon, By: "ops"})
	}, time.Hour)
	var second []api.PendingAction
	r.at(t, 2*time.Hour, func(actions []api.PendingAction) {
		require.Len(t, actions, 3, "both pins of the second turn wait")
		second = actions[1:]
		for _, pa := range second {
			r.decide(api.ApprovalSignal{ActionID: pa.ID, Decision: api.DecisionReject, Reason: "not while the first may be there"})
		}
	})

	snap := r.runPinner(t, "alice")

	require.Equal(t, map[string]int{doubted.OperationKey: 1}, pin.effects, "the one pin made, and only it")
	require.Equal(t, "acme/widgets#2", second[0].Target)
	require.Empty(t, second[0].Caution, "the pin in doubt is on another target")
	require.Equal(t, "acme/widgets#1", second[1].Target)
	require.Contains(t, second[1].Caution, "operationKey "+doubted.OperationKey)
	require.Contains(t, second[1].Caution, "on acme/widgets#1")
	require.Contains(t, second[1].Caution, "run "+snap.Run.ID)
	for _, pa := range snap.Actions {
		if pa.StepID == second[1].StepID {
			require.Equal(t, second[1].Caution, pa.Caution, "the caution stays on the action it was shown with")
		}
	}
}

// Two pins on one target proposed in one turn are both put to approvers
// at once. The first, approved, loses its answer and its look cannot tell:
// from then on the second, still waiting, cautions its approver of the
// first, while an operator has not resolved it and once they abandon it.
func TestAnActionOfTheSameTurnStillWaitingIsCautionedOnceAnEarlierOneIsInDoubt(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	pin := &pinTool{loseResponse: 1}
	r := newPinRun(t, &suite, pin,
		[]api.ToolCall{pinCall("p1", "acme/widgets#1", "first"), pinCall("p2", "acme/widgets#1", "second")})
	r.at(t, time.Minute, func(actions []api.PendingAction) {
		require.Len(t, actions, 2, "both pins of the turn wait")
		require.Empty(t, actions[1].Caution, "nothing is in doubt yet")
		r.decide(api.ApprovalSignal{ActionID: actions[0].ID, Decision: api.DecisionApprove})
	})
	var doubted api.AgentStep
	var unresolved string
	r.env.RegisterDelayedCallback(func() {
		snap := r.snapshot(t)
		require.NotEmpty(t, snap.AwaitingResolve, "the look could not tell: an operator must say")
		for _, st := range snap.Steps {
			if st.ID == snap.AwaitingResolve {
				doubted = st
			}
		}
		unresolved = snap.Actions[1].Caution
		r.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: snap.AwaitingResolve, Decision: api.ResolveAbandon, By: "ops"})
	}, time.Hour)
	var second api.PendingAction
	r.at(t, 2*time.Hour, func(actions []api.PendingAction) {
		second = actions[1]
		r.decide(api.ApprovalSignal{ActionID: second.ID, Decision: api.DecisionReject, Reason: "the first may be there"})
	})

	r.runPinner(t, "alice")

	require.Equal(t, map[string]int{doubted.OperationKey: 1}, pin.effects, "the one pin made, and only it")
	require.Contains(t, unresolved, "operationKey "+doubted.OperationKey, "in doubt, awaiting an operator")
	require.Equal(t, api.ActionWaiting, second.State)
	require.Contains(t, second.Caution, "operationKey "+doubted.OperationKey, "abandoned by an operator")
	require.Contains(t, second.Caution, "may have been")
	require.Contains(t, second.Caution, "abandoned by ops")
}
