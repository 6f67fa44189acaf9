// Package legacy is how runs from before the tool registry (the workflow's
// registryChangeID) call their tools: the check they made, and the per-tool
// activities they scheduled. It serves their histories' replay and their
// open runs; new runs never come here.
package legacy

import (
	"encoding/json"
	"fmt"
	"strconv"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/modelcall"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// reads are the activities those runs' reads scheduled.
var reads = map[string]string{
	api.ToolGetPullRequest:       api.ActivityGetPullRequest,
	api.ToolListPullRequestFiles: api.ActivityListPullRequestFiles,
}

// Check checks a call as those runs did. repo is the run's owner/name;
// hardened says whether the run took the security batch; pending whether
// the call's step is new (a step past pending was checked when it was, and
// cannot move to failed). actions finds the comment action.
func Check(call api.ToolCall, target api.Target, repo string, hardened, pending bool, actions *tools.Registry) (tools.Checked, string) {
	spec, args, refusal := modelcall.CheckToolCall(call, target)
	// Only the run appends a marker, after approval; one in the body (written
	// by the model, or by a prompt injection in the pull request) could pass
	// for another operation's proof during reconciliation.
	if refusal == "" && pending && hardened && spec.Name == api.ToolCreateIssueComment && github.CarriesOperationMarker(args.Body) {
		refusal = "refused: the comment body carries an operation marker (<!-- agent-operation: ... -->); " +
			"the run appends its own marker, so write the comment without one"
	}
	if refusal != "" {
		return tools.Checked{}, refusal
	}
	c := tools.Checked{Spec: spec}
	if spec.SideEffect {
		c.Action, _ = actions.Action(spec.Name)
		c.Ask = true
		c.Preview = args.Body
		c.Touches = fmt.Sprintf("%s#%d", repo, target.PullNumber)
		c.ArgsHash = api.ArgsHash(target, args.Body)
	}
	return c, ""
}

// StartRead schedules a read's own activity.
func StartRead(actx workflow.Context, tool string, target api.Target) workflow.Future {
	name, ok := reads[tool]
	if !ok {
		f, settable := workflow.NewFuture(actx)
		settable.SetError(fmt.Errorf("no read tool %q", tool))
		return f
	}
	return workflow.ExecuteActivity(actx, name, target)
}

// ReadOutput is a read's result as a tool's output.
func ReadOutput(ctx workflow.Context, tool string, f workflow.Future) (api.ToolOutput, error) {
	var raw json.RawMessage
	if err := f.Get(ctx, &raw); err != nil {
		return api.ToolOutput{}, err
	}
	out := api.ToolOutput{Content: raw}
	if tool == api.ToolListPullRequestFiles {
		var files []api.PullRequestFile
		_ = json.Unmarshal(raw, &files)
		out.SafeOutput = redact.JSON(redact.FileSummaries(files))
	}
	return out, nil
}

// Create posts the approved comment under its operationKey.
func Create(ctx, actx workflow.Context, target api.Target, key, body string) (api.ToolOutput, error) {
	in := api.CreateCommentInput{Target: target, Body: body, OperationKey: key}
	var res api.CommentResult
	if err := workflow.ExecuteActivity(actx, api.ActivityCreateIssueComment, in).Get(ctx, &res); err != nil {
		return api.ToolOutput{}, err
	}
	out := CommentOutput(res)
	out.Ignored = res.Ignored
	return out, nil
}

// Find looks for the comment of an operationKey with the approved body.
func Find(ctx, actx workflow.Context, target api.Target, key, body string) (api.ToolReconciliation, error) {
	in := api.FindCommentInput{Target: target, OperationKey: key, Body: body}
	var res api.FindCommentResult
	if err := workflow.ExecuteActivity(actx, api.ActivityFindCommentByOperationKey, in).Get(ctx, &res); err != nil {
		return api.ToolReconciliation{}, err
	}
	out := CommentOutput(api.CommentResult{CommentID: res.CommentID, HTMLURL: res.HTMLURL, AlreadyExisted: true})
	out.Ignored = res.Ignored
	return api.ToolReconciliation{Outcome: res.Outcome, Reason: res.Reason, Output: out}, nil
}

// CommentOutput is what those runs' comment steps recorded.
func CommentOutput(res api.CommentResult) api.ToolOutput {
	safe, _ := json.Marshal(res)
	return api.ToolOutput{Content: safe, SafeOutput: safe, ExternalID: strconv.FormatInt(res.CommentID, 10), URL: res.HTMLURL, AlreadyExisted: res.AlreadyExisted}
}

// MarkedSucceeded is what an operator's mark_succeeded recorded on those
// runs' comment steps.
func MarkedSucceeded(externalID string) api.ToolOutput {
	id, _ := strconv.ParseInt(externalID, 10, 64)
	out := CommentOutput(api.CommentResult{CommentID: id, AlreadyExisted: true})
	out.ExternalID = externalID
	return out
}
