package workflows

import (
	"encoding/json"
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/modelcall"
	"github.com/agentrun/agentrun/internal/redact"
)

// runToolCall runs one tool call to a terminal step and appends its result to
// the conversation exactly once. It returns an error only when the run must
// end: cancellation, or (under policyChangeID) a pull request it cannot read.
func (w *agentRun) runToolCall(ctx workflow.Context, call api.ToolCall) error {
	st := w.openStepFor(call.ID)
	if spec, ok := modelcall.ToolByName(call.Name); ok && !spec.SideEffect {
		w.setLabel(api.ToolLabel(call.Name))
	}
	if st == nil {
		st = w.newStep(ctx, api.StepToolCall, call.ID, call.Name, redact.JSON(json.RawMessage(modelcall.Arguments(call.Arguments))))
	}
	spec, args, refusal := modelcall.CheckToolCall(call, w.target)
	if refusal == "" && st.Status == api.StepPending {
		refusal = w.refuseBody(spec, args)
	}
	if refusal != "" {
		w.BadToolCalls++
		w.setStepStatus(ctx, st, api.StepFailed, refusal)
		w.appendToolResult(call.ID, call.Name, "failed: "+refusal)
		return nil
	}
	w.BadToolCalls = 0
	var (
		content string
		err     error
	)
	if spec.SideEffect {
		content, err = w.runGatedTool(ctx, st, args)
	} else {
		content, err = w.runReadTool(ctx, st)
	}
	if err != nil {
		return err
	}
	w.appendToolResult(call.ID, call.Name, content)
	return nil
}

// openStepFor finds the unfinished tool step of a call, after a continue-as-new.
func (w *agentRun) openStepFor(callID string) *api.AgentStep {
	for _, st := range w.Steps {
		if st.Type == api.StepToolCall && st.CallID == callID && !st.Status.IsTerminal() {
			return st
		}
	}
	return nil
}

// refuseBody says why a new side effect's body may not even be proposed, or
// "". It runs before approval only: a step already waiting or approved was
// checked when it was new, and a step past pending cannot move to failed.
func (w *agentRun) refuseBody(spec api.ToolSpec, args modelcall.ToolArgs) string {
	// Only the run appends a marker, after approval; one in the body (written
	// by the model, or by a prompt injection in the pull request) could pass
	// for another operation's proof during reconciliation.
	if w.hardened && spec.Name == api.ToolCreateIssueComment && github.CarriesOperationMarker(args.Body) {
		return "refused: the comment body carries an operation marker (<!-- agent-operation: ... -->); " +
			"the run appends its own marker, so write the comment without one"
	}
	return ""
}

// runReadTool runs a read-only tool; Temporal retries it with backoff.
func (w *agentRun) runReadTool(ctx workflow.Context, st *api.AgentStep) (string, error) {
	w.setLabel(api.ToolLabel(st.ToolName))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	actx := workflow.WithActivityOptions(ctx, w.readToolOptions(st.ToolName))
	var (
		result any
		err    error
	)
	switch st.ToolName {
	case api.ToolGetPullRequest:
		var pr api.PullRequest
		err = workflow.ExecuteActivity(actx, acts.GetPullRequest, w.target).Get(ctx, &pr)
		result = pr
	case api.ToolListPullRequestFiles:
		var files []api.PullRequestFile
		err = workflow.ExecuteActivity(actx, acts.ListPullRequestFiles, w.target).Get(ctx, &files)
		result = files
		st.SafeOutput = redact.JSON(redact.FileSummaries(files))
	default:
		err = fmt.Errorf("no read tool %q", st.ToolName)
	}
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := errorMessage(err)
		w.setStepStatus(ctx, st, api.StepFailed, msg)
		if w.policy {
			// A review of what the run could not read is no review: the run
			// fails rather than let the model finish as if it had one.
			return "", &inputUnreadableError{tool: st.ToolName, msg: msg}
		}
		return "failed: " + msg, nil
	}
	content, _ := json.Marshal(result)
	if st.SafeOutput == nil {
		st.SafeOutput = redact.JSON(result)
	}
	w.setStepStatus(ctx, st, api.StepSucceeded, "")
	return string(content), nil
}

// inputUnreadableError ends a run that could not read its pull request.
type inputUnreadableError struct {
	tool, msg string
}

func (e *inputUnreadableError) Error() string {
	return fmt.Sprintf("could not read the input (%s): %s", e.tool, e.msg)
}
