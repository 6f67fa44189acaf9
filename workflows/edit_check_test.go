package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// An edit is refused for what its arguments are as the run would write
// and send them, not as the approver's client spelled them: every byte
// that is not UTF-8 the run writes as U+FFFD, three bytes.
func TestAnEditLargerAsTheRunWritesItThanAnEditMayBeIsRefused(t *testing.T) {
	h := newHarness(t)
	raw := json.RawMessage(`{"body":"` + strings.Repeat("\xff", api.MaxEditArgsBytes/2) + `"}`)
	require.Less(t, len(raw), api.MaxEditArgsBytes, "the client's spelling is within the limit")
	h.whenWaiting(time.Minute, func(string) { h.approveWithEdit("alice", raw) })
	h.whenWaiting(2*time.Minute, func(id string) {
		require.Equal(t, api.ActionWaiting, h.snapshot().PendingAction.State, "a refused edit decides nothing")
		h.decide(id, api.DecisionReject, "alice", "no")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 0, h.markedComments())
	require.Nil(t, h.snapshot().PendingAction.Edit)
	ignored := h.ignoredSignals()
	require.Len(t, ignored, 1)
	require.Contains(t, ignored[0], "edit by alice not applied: the edited arguments are ")
	require.Contains(t, ignored[0], " bytes as the run writes them; at most 16384")
}

func TestAnEditWithoutTheArgsHashItEditsIsRefused(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{
			ActionID: id, Decision: api.DecisionApprove, Approver: "alice", Args: editedArgs(t, map[string]any{"body": editedBody}), RequestID: "e1",
		})
	})
	h.whenWaiting(2*time.Minute, func(id string) {
		require.Equal(t, api.ActionWaiting, h.snapshot().PendingAction.State)
		h.decide(id, api.DecisionReject, "alice", "no")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 0, h.markedComments())
	require.Contains(t, h.ignoredSignals(), "edit by alice not applied: an edit must name the argsHash of the version it edits")
}

// An edit that sends the model's call unchanged is an approval of it: no
// edit is recorded, and the model is not told a person changed it.
func TestAnEditToTheSameCallIsAPlainApproval(t *testing.T) {
	h := newHarness(t)
	var proposed api.PendingAction
	h.whenWaiting(time.Minute, func(string) {
		proposed = *h.snapshot().PendingAction
		h.approveWithEdit("alice", proposed.Args)
	})
	h.runPostingOnce(demoInput(), 1)
	snap := h.snapshot()
	require.Equal(t, api.ActionApproved, snap.PendingAction.State)
	require.Nil(t, snap.PendingAction.Edit)
	require.Equal(t, proposed.ArgsHash, snap.PendingAction.ArgsHash)
	require.Empty(t, eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventActionEdited }))
	require.Empty(t, snap.Outcome.Posted[0].EditedBy)
}

// editRun is a run of the built-in reviewer on acme/widgets#1, with its
// registry, agent and target, and no workflow around it.
func editRun(t *testing.T) *agentRun {
	t.Helper()
	reg := agents.MustBuiltin(nil)
	agent, err := reg.Agent("pr-review")
	require.NoError(t, err)
	w := &agentRun{}
	w.registry, w.agent, w.target = reg, agent, mustTarget(t)
	return w
}

func TestShownArgsAreLeftOutOnlyPastTheEditLimit(t *testing.T) {
	for _, n := range []int{api.MaxEditArgsBytes, api.MaxEditArgsBytes + 1} {
		args := json.RawMessage(`{"body":"` + strings.Repeat("x", n-len(`{"body":""}`)) + `"}`)
		require.Len(t, args, n)
		got := shownArgs(tools.Checked{Call: tools.Call{Args: args}})
		if n <= api.MaxEditArgsBytes {
			require.Equal(t, []byte(args), got, "%d bytes are shown", n)
		} else {
			require.Nil(t, got, "%d bytes are too many to show", n)
		}
	}
}

// approvedCall is what a step runs after its action was edited, checked
// again from the action's args: a check that no longer binds to the
// approved argsHash leaves a call that asks and is not the approved one,
// which attemptCreate refuses.
func TestTheApprovedCallIsTheEditOnlyWhileItStillChecksToTheApprovedHash(t *testing.T) {
	w := editRun(t)
	model := api.ToolCall{ID: "call-1", Name: api.ToolCreateIssueComment, Arguments: editedArgs(t, map[string]any{"body": "the model's"})}
	c, why := w.registry.Check(w.agent, model, w.target)
	require.Empty(t, why)
	st := &api.AgentStep{ID: "step-5", CallID: "call-1", ToolName: api.ToolCreateIssueComment}

	require.Equal(t, c, w.approvedCall(st, c), "no action: the model's call")
	pa := &api.PendingAction{ID: "act-1", StepID: st.ID, ToolName: st.ToolName, Args: c.Call.Args, ArgsHash: c.ArgsHash}
	w.Actions = []*api.PendingAction{pa}
	require.Equal(t, c, w.approvedCall(st, c), "not edited: the model's call")

	edited, why := w.registry.Check(w.agent, api.ToolCall{ID: "call-1", Name: st.ToolName, Arguments: editedArgs(t, map[string]any{"body": editedBody})}, w.target)
	require.Empty(t, why)
	pa.Edit = &api.ActionEdit{By: "alice"}
	pa.Args, pa.ArgsHash = edited.Call.Args, edited.ArgsHash
	got := w.approvedCall(st, c)
	require.Equal(t, edited.ArgsHash, got.ArgsHash)
	require.Equal(t, editedBody, got.Preview)

	for name, change := range map[string]func(){
		"another hash":              func() { pa.Args, pa.ArgsHash = edited.Call.Args, c.ArgsHash },
		"args that no longer check": func() { pa.Args, pa.ArgsHash = json.RawMessage(`{"text":"x"}`), edited.ArgsHash },
	} {
		change()
		got := w.approvedCall(st, c)
		require.True(t, got.Ask, name)
		require.Empty(t, got.ArgsHash, "%s: no approval binds to it", name)
		require.Equal(t, c.Call, got.Call, name)
		require.Equal(t, c.Action, got.Action, name)
	}
}

func TestAnEditOfAnActionWhoseStepIsGoneStillAppliesToTheAction(t *testing.T) {
	w := editRun(t)
	require.Nil(t, w.stepByID("step-5"))
	w.Steps = []*api.AgentStep{{ID: "step-4"}, {ID: "step-5"}}
	require.Same(t, w.Steps[1], w.stepByID("step-5"))
	require.Nil(t, w.stepByID("step-6"))
}

// An edit of exactly the bound, as the run writes it, is applied and runs.
func TestAnEditOfExactlyTheBoundIsApplied(t *testing.T) {
	h := newHarness(t)
	raw := json.RawMessage(`{"body":"` + strings.Repeat("x", api.MaxEditArgsBytes-len(`{"body":""}`)) + `"}`)
	require.Len(t, raw, api.MaxEditArgsBytes)
	h.whenWaiting(time.Minute, func(string) { h.approveWithEdit("alice", raw) })
	h.runPostingOnce(demoInput(), 1)
	snap := h.snapshot()
	require.Empty(t, h.ignoredSignals())
	require.NotNil(t, snap.PendingAction.Edit)
	require.Equal(t, []byte(raw), []byte(snap.PendingAction.Args), "shown, at exactly the bound")
}
