package workflows

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/tools"
)

// ticketTool is a ticket-like action with its own words. Its first attempt
// is lost before the service sees it and its second made the ticket but
// lost the answer, both as a Go HTTP client reports it: an EOF wrapped by
// the tool.
type ticketTool struct {
	mu      sync.Mutex
	tickets map[string]string // operationKey: ticket ID
	tries   int
	calls   []seenCall
}

// seenCall is what one Execute or Reconcile was told of its step.
type seenCall struct {
	what          string
	attempt       int
	keyRecordedAt time.Time
}

func (*ticketTool) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "create_ticket", Description: "Open a ticket.", SideEffect: true,
		Words:      api.ToolWords{Noun: "ticket", Verb: "create", Past: "created"},
		Parameters: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string","minLength":1}},"required":["title"],"additionalProperties":false}`)}
}

func (*ticketTool) Preview(c tools.Call) (string, error) {
	return "Create ticket " + string(c.Args), nil
}
func (*ticketTool) Touches(tools.Call) (string, error) { return "tickets.example", nil }
func (t *ticketTool) lost() error                      { return fmt.Errorf("create_ticket: %w", lostAnswer()) }
func lostAnswer() error {
	return &url.Error{Op: "Post", URL: "http://tickets.example/tickets", Err: io.EOF}
}
func (t *ticketTool) output(id string) api.ToolOutput {
	return api.ToolOutput{Content: json.RawMessage(`{"id":"` + id + `"}`), ExternalID: id}
}

func (t *ticketTool) Execute(_ context.Context, c tools.Call) (api.ToolOutput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls = append(t.calls, seenCall{"execute", c.Attempt, c.KeyRecordedAt})
	t.tries++
	switch t.tries {
	case 1:
		return api.ToolOutput{}, t.lost()
	case 2:
		t.tickets[c.OperationKey] = "T-1001"
		return api.ToolOutput{}, t.lost()
	}
	return api.ToolOutput{}, tools.Rejected("create_ticket: a third attempt", nil)
}

func (t *ticketTool) Reconcile(_ context.Context, c tools.Call) (api.ToolReconciliation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.calls = append(t.calls, seenCall{"reconcile", c.Attempt, c.KeyRecordedAt})
	if id, ok := t.tickets[c.OperationKey]; ok {
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: t.output(id)}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
}

// runTicket runs an agent that creates one ticket, approved by alice.
func runTicket(t *testing.T) (api.RunSnapshot, []api.Event, *ticketTool) {
	t.Helper()
	ticket := &ticketTool{tickets: map[string]string{}}
	reg := tools.NewRegistry()
	require.NoError(t, reg.Add(ticket, tools.AlwaysAsk))
	require.NoError(t, reg.AddAgent(tools.Agent{Name: "ticketer", Tools: []tools.AgentTool{{Name: "create_ticket"}}}))
	var suite testsuite.WorkflowTestSuite
	model := &scriptedModel{turns: [][]api.ToolCall{{call("t", "create_ticket", `{"title":"Disk full"}`)}}}
	env := newRunEnv(&suite, New(reg).AgentRun, &activities.Activities{Tools: reg, Model: model})
	r := &customRun{env: env}
	var waiting api.RunSnapshot
	env.RegisterDelayedCallback(func() {
		waiting = r.snapshot(t)
		r.decide(api.ApprovalSignal{ActionID: waiting.PendingAction.ID, Decision: api.DecisionApprove, RequestID: "r1"})
	}, time.Minute)
	snap := r.run(t, "ticketer")
	require.NoError(t, env.GetWorkflowError())
	require.Equal(t, "Waiting for approval to create a ticket", waiting.Label)
	v, err := env.QueryWorkflow(api.QueryEvents, int64(0))
	require.NoError(t, err)
	var events []api.Event
	require.NoError(t, v.Get(&events))
	return snap, events, ticket
}

func TestATicketActionsRunSaysTicketEverywhereAndNeverComment(t *testing.T) {
	snap, events, ticket := runTicket(t)

	require.Len(t, ticket.tickets, 1, "one ticket, though two answers were lost")
	var labels []string
	for _, e := range events {
		labels = append(labels, e.Label)
		require.NotContains(t, strings.ToLower(e.Label), "comment", "event %d", e.Sequence)
		require.NotContains(t, strings.ToLower(e.Detail), "comment", "event %d", e.Sequence)
	}
	for _, want := range []string{"Waiting for approval to create a ticket", "Creating the ticket", "Checking whether the ticket was already created"} {
		require.Contains(t, labels, want)
	}
	o := snap.Outcome
	// What the summary says it was done on is the run's target (item 1).
	require.True(t, strings.HasPrefix(o.Summary, "Created 1 ticket on "), o.Summary)
	require.Len(t, o.Posted, 1)
	require.Equal(t, "T-1001", o.Posted[0].ExternalID)
	// The lost answers' ticket was found by a look, not made again, and
	// everything that names it says so.
	require.Equal(t, "found ticket", o.Posted[0].Made)
	require.Equal(t, api.EffectFound, o.Posted[0].Effect)
	require.Equal(t, "already created before the answer was lost", o.Posted[0].AlreadyDone)
	require.Contains(t, o.Summary, "a ticket found already created before the answer was lost, not created again")
	require.Zero(t, o.Posted[0].CommentID)

	var titles []string
	for _, st := range snap.Steps {
		titles = append(titles, runview.StepTitle(st))
	}
	require.Contains(t, titles, "found ticket T-1001 (already created before the answer was lost)")
	require.Contains(t, titles, "approval to create a ticket")

	var out bytes.Buffer
	require.NoError(t, runview.Status(&out, snap.Run.ID, snap, nil))
	require.Contains(t, out.String(), "done      found ticket T-1001 (already created before the answer was lost) on tickets.example, approved by alice")
	require.Contains(t, out.String(), "outcome  Created 1 ticket on ")
	require.NotContains(t, strings.ToLower(out.String()), "comment", out.String())
}

func TestASucceededStepShowsNoErrorAndEachEarlierErrorOnceInItsEvents(t *testing.T) {
	snap, events, _ := runTicket(t)

	var st *api.AgentStep
	for i := range snap.Steps {
		if snap.Steps[i].ToolName == "create_ticket" && snap.Steps[i].Type == api.StepToolCall {
			st = &snap.Steps[i]
		}
	}
	require.NotNil(t, st)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Empty(t, st.Error, "a succeeded step shows no error")
	require.Equal(t, "T-1001", st.ExternalResourceID)
	var lost []string
	for _, e := range events {
		if e.StepID == st.ID && strings.Contains(e.Detail, "EOF") {
			lost = append(lost, e.Detail)
		}
	}
	require.Len(t, lost, 2, "one event per lost answer: %q", lost)
	for _, d := range lost {
		require.Equal(t, 1, strings.Count(d, "EOF"), "the error is said once, not once per cause: %q", d)
		require.Contains(t, d, `create_ticket: Post "http://tickets.example/tickets": EOF`)
	}
}

// A tool's strategy may rest on the attempt it is and on when the run
// recorded its operationKey (a look over the latest N records proves
// "not created" only past that time): every attempt and look of the step
// is told both, the time the same for all of them, from workflow time.
func TestEveryAttemptAndLookOfAnActionIsToldItsAttemptAndWhenItsKeyWasRecorded(t *testing.T) {
	snap, _, ticket := runTicket(t)

	var st api.AgentStep
	for _, s := range snap.Steps {
		if s.ToolName == "create_ticket" && s.Type == api.StepToolCall {
			st = s
		}
	}
	require.NotNil(t, st.KeyRecordedAt, "the step records when its key was recorded")
	require.Equal(t, api.EffectFound, st.Effect, "the second attempt's ticket was found by a look")
	var executes []int
	for _, c := range ticket.calls {
		require.True(t, c.keyRecordedAt.Equal(*st.KeyRecordedAt), "%s of attempt %d: %s, want %s", c.what, c.attempt, c.keyRecordedAt, st.KeyRecordedAt)
		require.GreaterOrEqual(t, c.attempt, 1, c.what)
		if c.what == "execute" {
			executes = append(executes, c.attempt)
		}
	}
	require.Equal(t, []int{1, 2}, executes, "each attempt knows which it is")
	require.False(t, st.StartedAt == nil || st.KeyRecordedAt.After(*st.StartedAt), "the key is recorded before the first attempt")
}
