package workflows

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// The run's target is its agent's: a kind other than a pull request, its
// tools pinned to it, and its approvers named because the kind has no
// source of who may approve.

// fileTicket files a ticket in the run's queue (Target.Fields["queue"]) and
// counts its effects by operationKey.
type fileTicket struct {
	mu      sync.Mutex
	effects map[string]string // operationKey -> queue
}

func (f *fileTicket) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "file_ticket", Description: "File a ticket.", SideEffect: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","minLength":1},"queue":{"type":"string"}},"required":["title"],"additionalProperties":false}`)}
}

func (f *fileTicket) Preview(c tools.Call) (string, error) {
	return "file ticket " + string(c.Args), nil
}
func (f *fileTicket) Touches(c tools.Call) (string, error) { return c.Target.Ref(), nil }

func (f *fileTicket) Execute(_ context.Context, c tools.Call) (api.ToolOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.effects[c.OperationKey] = c.Target.Fields["queue"]
	return api.ToolOutput{Content: json.RawMessage(`{"id":"T-1001"}`), ExternalID: "T-1001"}, nil
}

func (f *fileTicket) Reconcile(_ context.Context, c tools.Call) (api.ToolReconciliation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.effects[c.OperationKey]; ok {
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: api.ToolOutput{ExternalID: "T-1001"}}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
}

var ticketAgent = tools.Agent{Name: "tickets", TargetKind: "support_queue", TargetLabel: "{queue} queue", Task: "File the ticket of",
	Tools: []tools.AgentTool{{Name: "file_ticket", Ask: true}}}

// newTicketRun is a testsuite run over a registry with file_ticket, the
// tickets agent and a pull-request agent, on a worker without GitHub.
func newTicketRun(t *testing.T, ticket *fileTicket, turns ...[]api.ToolCall) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	reg := tools.NewRegistry()
	require.NoError(t, reg.Add(ticket, tools.AgentDecides))
	require.NoError(t, reg.AddAgent(ticketAgent))
	require.NoError(t, reg.AddAgent(tools.Agent{Name: "pr-stamper", Tools: []tools.AgentTool{{Name: "file_ticket", Ask: true}}}))
	var suite testsuite.WorkflowTestSuite
	return newRunEnv(&suite, New(reg).AgentRun, &activities.Activities{Tools: reg, Model: &scriptedModel{turns: turns}})
}

func ticketInput(approvers ...string) api.RunInput {
	target, err := api.NewTarget("support_queue", map[string]string{"queue": "support"})
	if err != nil {
		panic(err)
	}
	return api.RunInput{UserID: "carol", Agent: "tickets", Approvers: approvers, InlineConversationBytes: -1}.WithTarget(target)
}

func querySnapshot(t *testing.T, env *testsuite.TestWorkflowEnvironment) api.RunSnapshot {
	t.Helper()
	v, err := env.QueryWorkflow(api.QueryRun)
	require.NoError(t, err)
	var snap api.RunSnapshot
	require.NoError(t, v.Get(&snap))
	return snap
}

func TestATicketRunsNamedApproverApprovesAndTheTicketIsFiledOnceInItsQueue(t *testing.T) {
	ticket := &fileTicket{effects: map[string]string{}}
	env := newTicketRun(t, ticket,
		[]api.ToolCall{call("elsewhere", "file_ticket", `{"title":"t","queue":"billing"}`)},
		[]api.ToolCall{call("here", "file_ticket", `{"title":"t","queue":"support"}`)})
	env.RegisterDelayedCallback(func() {
		snap := querySnapshot(t, env)
		require.NotNil(t, snap.PendingAction, "label %q", snap.Label)
		require.Equal(t, "support_queue queue=support", snap.PendingAction.Target)
		env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice"})
	}, time.Minute)

	env.ExecuteWorkflow(api.WorkflowName, ticketInput("alice"))

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	snap := querySnapshot(t, env)
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Len(t, ticket.effects, 1, "the call naming another queue is refused, the approved one runs once")
	for _, queue := range ticket.effects {
		require.Equal(t, "support", queue)
	}
	require.Equal(t, "refused: file_ticket may only act on support_queue queue=support", snap.Steps[1].Error)
	require.Len(t, snap.Outcome.Posted, 1)
	require.Equal(t, "alice", snap.Outcome.Posted[0].ApprovedBy)
	require.Equal(t, "T-1001", snap.Outcome.Posted[0].ExternalID)
	require.Equal(t, "support_queue queue=support", snap.Outcome.Posted[0].Target)
	require.Equal(t, "support queue", snap.Run.TargetLabel, "the run records the label its agent declares")
	require.Contains(t, snap.Outcome.Summary, "on support queue")
}

func TestATicketRunWithoutApproversFailsAtStartSayingItNeedsThem(t *testing.T) {
	ticket := &fileTicket{effects: map[string]string{}}
	env := newTicketRun(t, ticket, []api.ToolCall{call("here", "file_ticket", `{"title":"t"}`)})

	env.ExecuteWorkflow(api.WorkflowName, ticketInput())

	require.Error(t, env.GetWorkflowError())
	snap := querySnapshot(t, env)
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Contains(t, snap.Run.Error, "a support_queue target has no source of who may approve")
	require.Contains(t, snap.Run.Error, "refused: the run needs named approvers")
	require.Empty(t, ticket.effects)
}

func TestARunWhoseTargetIsNotTheKindItsAgentTakesFailsNamingBoth(t *testing.T) {
	ticket := &fileTicket{effects: map[string]string{}}
	env := newTicketRun(t, ticket, []api.ToolCall{call("here", "file_ticket", `{"title":"t"}`)})
	in := ticketInput("alice")
	in.Agent = "pr-stamper"

	env.ExecuteWorkflow(api.WorkflowName, in)

	snap := querySnapshot(t, env)
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Equal(t, "refused: agent pr-stamper takes a github_pull_request target, not a support_queue one", snap.Run.Error)
	require.Empty(t, ticket.effects)
}

// A pull request run without approvers asks GitHub who may approve; a worker
// without GitHub must refuse the decision at once, saying why, not retry a
// check that cannot run and leave the decider waiting.
func TestAnApprovalOnAWorkerWithoutGitHubIsRefusedAtOnceSayingWhy(t *testing.T) {
	ticket := &fileTicket{effects: map[string]string{}}
	env := newTicketRun(t, ticket, []api.ToolCall{call("here", "file_ticket", `{"title":"t"}`)})
	env.RegisterDelayedCallback(func() {
		snap := querySnapshot(t, env)
		require.NotNil(t, snap.PendingAction, "label %q", snap.Label)
		env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice"})
	}, time.Minute)

	env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol",
		Agent: "pr-stamper", ApprovalTimeout: time.Hour, InlineConversationBytes: -1})

	require.Empty(t, ticket.effects)
	v, err := env.QueryWorkflow(api.QueryEvents, int64(0))
	require.NoError(t, err)
	var evs []api.Event
	require.NoError(t, v.Get(&evs))
	ignored := eventsWith(evs, func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 1)
	require.Contains(t, ignored[0].Detail, "approve by alice not applied")
	require.Contains(t, ignored[0].Detail, "this worker has no GitHub access")
	require.Contains(t, ignored[0].Detail, "named approvers")
	checks := 0
	for _, st := range querySnapshot(t, env).Steps {
		if st.ToolName == api.ToolCheckRepoPermission {
			checks++
			require.Equal(t, 1, max(st.Attempt, 1), "a check that cannot run is not retried")
		}
	}
	require.Equal(t, 1, checks)
	require.Equal(t, api.ActionExpired, querySnapshot(t, env).PendingAction.State, "nothing approved it")
}

// A start that reaches the workflow without the channels' checks (a raw
// client) is held to the same goal rule: the run fails before it calls the
// model or any tool.
func TestARunWhoseGoalBreaksTheGoalRuleFailsAtStartCallingNothing(t *testing.T) {
	ticket := &fileTicket{effects: map[string]string{}}
	env := newTicketRun(t, ticket, []api.ToolCall{call("here", "file_ticket", `{"title":"t"}`)})
	in := ticketInput("alice")
	in.Goal = strings.Repeat("x", api.MaxGoalBytes+1)

	env.ExecuteWorkflow(api.WorkflowName, in)

	require.Error(t, env.GetWorkflowError())
	snap := querySnapshot(t, env)
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Contains(t, snap.Run.Error, "refused: goal must be valid UTF-8 of at most 2000 bytes")
	require.Empty(t, snap.Steps, "no model call, no tool")
	require.Empty(t, ticket.effects)
}
