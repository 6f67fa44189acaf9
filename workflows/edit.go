// This file is approval with edits: an approver may send the action's
// arguments as they want it run. The run checks the edited call as it
// checked the model's (schema, pin, Touches), binds the approval to the
// edited call's argsHash and runs that call, under the same operationKey.

package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// shownArgs are a call's arguments as its action shows them, so that a
// client may edit them: nil when too large for the snapshot and the inbox.
func shownArgs(c tools.Checked) []byte {
	if len(c.Call.Args) > api.MaxEditArgsBytes {
		return nil
	}
	return c.Call.Args
}

// checkEdit checks an approval's edited arguments for pa: the agent lets
// the tool be edited, the call passes the registry's checks, and it touches
// what the action touches. It returns the edited call, or why it is refused.
func (w *agentRun) checkEdit(pa *api.PendingAction, sig api.ApprovalSignal) (tools.Checked, string) {
	who := api.TruncateUTF8(strings.TrimSpace(sig.Approver), maxFieldBytes)
	refuse := func(why string) (tools.Checked, string) {
		return tools.Checked{}, fmt.Sprintf("edit by %s not applied: %s", who, why)
	}
	switch {
	case !pa.Editable:
		return refuse(fmt.Sprintf("agent %s does not let %s be edited", w.agent.Name, pa.ToolName))
	case sig.ArgsHash == "":
		return refuse("an edit must name the argsHash of the version it edits")
	}
	call := api.ToolCall{Name: pa.ToolName, Arguments: sig.Args}
	c, why := w.registry.Check(w.agent, call, w.target)
	switch {
	case why != "":
		return refuse(api.TruncateUTF8(why, maxFieldBytes))
	case c.Action == nil:
		return refuse(pa.ToolName + " is not an action")
	case len(c.Call.Args) > api.MaxEditArgsBytes:
		return refuse(fmt.Sprintf("the edited arguments are %d bytes as the run writes them; at most %d", len(c.Call.Args), api.MaxEditArgsBytes))
	case c.Touches != pa.Target:
		return refuse(fmt.Sprintf("the edited action would act on %s, not %s; an edit may not change what the action touches",
			api.TruncateUTF8(c.Touches, maxFieldBytes), pa.Target))
	}
	return c, ""
}

// applyEdit makes the edited call pa's: its args, preview and argsHash,
// keeping the version the model proposed and who edited it. It returns why
// the edit is refused, and changes nothing then. An edit to the same call
// is no edit.
func (w *agentRun) applyEdit(ctx workflow.Context, pa *api.PendingAction, sig api.ApprovalSignal) string {
	c, why := w.checkEdit(pa, sig)
	if why != "" || c.ArgsHash == pa.ArgsHash {
		return why
	}
	who := strings.TrimSpace(sig.Approver)
	from := api.ArgsVersion{Args: pa.Args, ArgsHash: pa.ArgsHash, Preview: pa.Preview}
	pa.Edit = &api.ActionEdit{By: who, At: workflow.Now(ctx), From: from}
	pa.Args, pa.ArgsHash, pa.Preview = shownArgs(c), c.ArgsHash, c.Preview
	if st := w.stepByID(pa.StepID); st != nil {
		st.SafeInput = redact.Action(c.Touches, map[string]any{"preview": c.Preview, "editedBy": who})
	}
	w.emit(ctx, api.EventActionEdited, pa.StepID, string(pa.State),
		fmt.Sprintf("edited by %s: argsHash %s became %s", who, from.ArgsHash, pa.ArgsHash))
	return ""
}

// approvedCall is the call an action's step runs: the approver's edit when
// there is one, checked again from the action's args, so that the preview,
// Touches, argsHash and reconcile all are the edited call's, after a
// continue-as-new too. A check that no longer passes leaves a call
// attemptCreate refuses.
func (w *agentRun) approvedCall(st *api.AgentStep, c tools.Checked) tools.Checked {
	pa := w.ActionForStep(st.ID)
	if pa == nil || pa.Edit == nil {
		return c
	}
	edited, why := w.registry.Check(w.agent, api.ToolCall{ID: st.CallID, Name: st.ToolName, Arguments: pa.Args}, w.target)
	if why != "" || edited.ArgsHash != pa.ArgsHash {
		return tools.Checked{Spec: c.Spec, Action: c.Action, Ask: true, Call: c.Call}
	}
	return edited
}

// editedResult is the tool result of a step whose action a person edited:
// the model learns that what ran is not what it proposed.
func (w *agentRun) editedResult(st *api.AgentStep, content string) string {
	if pa := w.ActionForStep(st.ID); pa != nil && pa.Edit != nil {
		return api.EditedResult(content, pa.Edit.By)
	}
	return content
}

func (w *agentRun) stepByID(id string) *api.AgentStep {
	for _, st := range w.Steps {
		if st.ID == id {
			return st
		}
	}
	return nil
}
