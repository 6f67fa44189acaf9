package workflows

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

// This file is how runs from before registryChangeID call their tools: the
// check they made, and the per-tool activities they scheduled. It serves
// their histories' replay and their open runs; new runs never come here.

// legacyReads are the activities those runs' reads scheduled.
var legacyReads = map[string]string{
	api.ToolGetPullRequest:       api.ActivityGetPullRequest,
	api.ToolListPullRequestFiles: api.ActivityListPullRequestFiles,
}

func (w *agentRun) legacyCheck(call api.ToolCall, st *api.AgentStep) (tools.Checked, string) {
	spec, args, refusal := modelcall.CheckToolCall(call, w.target)
	// A step past pending was checked when it was new, and cannot move to
	// failed.
	if refusal == "" && (st == nil || st.Status == api.StepPending) {
		refusal = w.refuseBody(spec, args)
	}
	if refusal != "" {
		return tools.Checked{}, refusal
	}
	c := tools.Checked{Spec: spec}
	if spec.SideEffect {
		c.Action, _ = builtin.registry.Action(spec.Name)
		c.Ask = true
		c.Preview = args.Body
		c.Touches = fmt.Sprintf("%s#%d", w.in.Repo, w.target.PullNumber)
		c.ArgsHash = api.ArgsHash(w.target, args.Body)
	}
	return c, ""
}

// refuseBody says why a new comment's body may not even be proposed, or "".
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

func (w *agentRun) legacyStartRead(actx workflow.Context, st *api.AgentStep) workflow.Future {
	name, ok := legacyReads[st.ToolName]
	if !ok {
		f, settable := workflow.NewFuture(actx)
		settable.SetError(fmt.Errorf("no read tool %q", st.ToolName))
		return f
	}
	return workflow.ExecuteActivity(actx, name, w.target)
}

func legacyReadOutput(ctx workflow.Context, st *api.AgentStep, f workflow.Future) (api.ToolOutput, error) {
	var raw json.RawMessage
	if err := f.Get(ctx, &raw); err != nil {
		return api.ToolOutput{}, err
	}
	out := api.ToolOutput{Content: raw}
	if st.ToolName == api.ToolListPullRequestFiles {
		var files []api.PullRequestFile
		_ = json.Unmarshal(raw, &files)
		out.SafeOutput = redact.JSON(redact.FileSummaries(files))
	}
	return out, nil
}

func (w *agentRun) legacyCreate(ctx, actx workflow.Context, st *api.AgentStep, c tools.Checked) (api.ToolOutput, error) {
	in := api.CreateCommentInput{Target: w.target, Body: c.Preview, OperationKey: st.OperationKey}
	var res api.CommentResult
	if err := workflow.ExecuteActivity(actx, api.ActivityCreateIssueComment, in).Get(ctx, &res); err != nil {
		return api.ToolOutput{}, err
	}
	out := legacyCommentOutput(res)
	out.Ignored = res.Ignored
	return out, nil
}

func (w *agentRun) legacyFind(ctx, actx workflow.Context, st *api.AgentStep, c tools.Checked) (api.ToolReconciliation, error) {
	in := api.FindCommentInput{Target: w.target, OperationKey: st.OperationKey, Body: c.Preview}
	var res api.FindCommentResult
	if err := workflow.ExecuteActivity(actx, api.ActivityFindCommentByOperationKey, in).Get(ctx, &res); err != nil {
		return api.ToolReconciliation{}, err
	}
	out := legacyCommentOutput(api.CommentResult{CommentID: res.CommentID, HTMLURL: res.HTMLURL, AlreadyExisted: true})
	out.Ignored = res.Ignored
	return api.ToolReconciliation{Outcome: res.Outcome, Reason: res.Reason, Output: out}, nil
}

// legacyCommentOutput is what those runs' comment steps recorded.
func legacyCommentOutput(res api.CommentResult) api.ToolOutput {
	safe, _ := json.Marshal(res)
	return api.ToolOutput{Content: safe, SafeOutput: safe, ExternalID: strconv.FormatInt(res.CommentID, 10), URL: res.HTMLURL, AlreadyExisted: res.AlreadyExisted}
}
