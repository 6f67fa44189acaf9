package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// What a run does with the calls it refuses, and what its label says of the
// calls it takes (runToolCall): a refused call runs nothing and counts
// against the model; the label names a call only while the run runs it.

// refusedCall names a tool the agents here were not given.
func refusedCall(id string) api.ToolCall { return call(id, "shred", `{}`) }

// badTurns are n turns of one refused call each.
func badTurns(prefix string, n int) [][]api.ToolCall {
	var turns [][]api.ToolCall
	for i := range n {
		turns = append(turns, []api.ToolCall{refusedCall(prefix + string(rune('a'+i)))})
	}
	return turns
}

func TestAModelThatKeepsCallingAToolItWasNotGivenEndsTheRunAfterFourRefusalsInARow(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	// Ten bad turns, then "done": the run must stop at the fourth.
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, badTurns("bad-", 10)...)

	snap := r.run(t, "reader")

	err := r.env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "the model made 4 invalid tool calls in a row")
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Len(t, modelSteps(snap), maxBadToolCalls+1, "no model call after the fourth refusal")
	var refused int
	for _, st := range snap.Steps {
		if st.Type == api.StepToolCall {
			require.Equal(t, api.StepFailed, st.Status)
			require.Equal(t, `unknown tool "shred"`, st.Error)
			refused++
		}
	}
	require.Equal(t, maxBadToolCalls+1, refused)
	require.Empty(t, r.stamp.effects)
}

func TestAGoodCallBetweenRefusedOnesStartsTheCountOfRefusalsInARowAgain(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	turns := badTurns("before-", maxBadToolCalls)
	turns = append(turns, []api.ToolCall{call("good", "fast_read", `{}`)})
	turns = append(turns, badTurns("after-", maxBadToolCalls)...)
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, turns...)

	snap := r.run(t, "reader")

	require.NoError(t, r.env.GetWorkflowError(), "never more than three refusals in a row")
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, "done", snap.Run.Result)
}

// stepEvents are the events of the step of call callID, in order.
func stepEvents(t *testing.T, snap api.RunSnapshot, events []api.Event, callID string) []api.Event {
	t.Helper()
	for _, st := range snap.Steps {
		if st.CallID == callID && st.Type == api.StepToolCall {
			return eventsWith(events, func(e api.Event) bool { return e.StepID == st.ID })
		}
	}
	t.Fatalf("no step of call %s", callID)
	return nil
}

func (r *customRun) events(t *testing.T) []api.Event {
	t.Helper()
	v, err := r.env.QueryWorkflow(api.QueryEvents, int64(0))
	require.NoError(t, err)
	var evs []api.Event
	require.NoError(t, v.Get(&evs))
	return evs
}

func TestARefusedCallNeverLabelsTheRunAsRunningIt(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, []api.ToolCall{refusedCall("x")})

	snap := r.run(t, "reader")

	require.NoError(t, r.env.GetWorkflowError())
	evs := stepEvents(t, snap, r.events(t), "x")
	require.Equal(t, []string{string(api.StepPending), string(api.StepFailed)}, statusesOf(evs))
	for _, e := range evs {
		require.Equal(t, api.LabelThinking, e.Label, "nothing ran: the run was still deciding (event %d)", e.Sequence)
	}
}

func TestTheEventThatOpensAReadsStepAlreadySaysTheRunReadsIt(t *testing.T) {
	agent := tools.Agent{Name: "reader", Tools: []tools.AgentTool{{Name: "fast_read"}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, []api.ToolCall{call("r", "fast_read", `{}`)})

	snap := r.run(t, "reader")

	require.NoError(t, r.env.GetWorkflowError())
	evs := stepEvents(t, snap, r.events(t), "r")
	require.Equal(t, []string{string(api.StepPending), string(api.StepRunning), string(api.StepSucceeded)}, statusesOf(evs))
	for _, e := range evs {
		require.Equal(t, "Running fast_read", e.Label, "event %d (%s)", e.Sequence, e.Status)
	}
}

func TestAnActionThatWaitsForApprovalIsNeverLabelledAsRunningBeforeItIsApproved(t *testing.T) {
	agent := tools.Agent{Name: "stamper", Tools: []tools.AgentTool{{Name: "stamp", Ask: true}}}
	r := newCustomRun(t, agent, &stampTool{effects: map[string]int{}}, []api.ToolCall{call("s", "stamp", `{"word":"ok"}`)})
	r.env.RegisterDelayedCallback(func() {
		snap := r.snapshot(t)
		require.Len(t, snap.Actions, 1)
		require.Empty(t, r.stamp.effects)
		for _, e := range stepEvents(t, snap, r.events(t), "s") {
			// Still deciding, then waiting: never "Running stamp" while it waits for a person.
			if e.Label != api.LabelThinking {
				require.True(t, strings.HasPrefix(e.Label, "Waiting for approval"), "event %d (%s): %q", e.Sequence, e.Status, e.Label)
			}
		}
		r.decide(api.ApprovalSignal{ActionID: snap.Actions[0].ID, Decision: api.DecisionApprove})
	}, time.Minute)

	snap := r.run(t, "stamper")

	require.NoError(t, r.env.GetWorkflowError())
	requireStamped(t, r.stamp, 1)
	require.Equal(t, api.StepSucceeded, snap.Steps[1].Status)
}

func statusesOf(evs []api.Event) []string {
	var out []string
	for _, e := range evs {
		if e.Type == api.EventStepStatus {
			out = append(out, e.Status)
		}
	}
	return out
}
