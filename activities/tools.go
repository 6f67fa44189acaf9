package activities

import (
	"bytes"
	"context"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// ExecuteTool runs one call of a registered tool, as the workflow checked it.
func (a *Activities) ExecuteTool(ctx context.Context, in api.ToolInput) (api.ToolOutput, error) {
	_, stop := heartbeatWhile(ctx, api.ActionHeartbeatInterval, api.ActionHeartbeatInterval)
	defer stop()
	t, err := a.tool(in)
	if err != nil {
		return api.ToolOutput{}, err
	}
	action, isAction := t.(tools.Action)
	if isAction && in.OperationKey == "" {
		return api.ToolOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: an action runs only under an operationKey", in.Tool), api.ErrTypeInvalidInput, nil)
	}
	call, err := callOf(action, in)
	if err != nil {
		return api.ToolOutput{}, err
	}
	out, err := t.Execute(ctx, call)
	// Every result passes here, so here it is bounded, whatever the tool.
	return boundOutput(in.Tool, withoutSafeCopy(out)), boundError(err)
}

// ReconcileTool asks a registered action whether its operationKey's effect
// happened.
func (a *Activities) ReconcileTool(ctx context.Context, in api.ToolInput) (api.ToolReconciliation, error) {
	_, stop := heartbeatWhile(ctx, api.ActionHeartbeatInterval, api.ActionHeartbeatInterval)
	defer stop()
	t, err := a.tool(in)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	action, ok := t.(tools.Action)
	if !ok || in.OperationKey == "" {
		return api.ToolReconciliation{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: only an action with an operationKey reconciles", in.Tool), api.ErrTypeInvalidInput, nil)
	}
	call, err := callOf(action, in)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	res, err := action.Reconcile(ctx, call)
	res.Output = boundOutput(in.Tool, withoutSafeCopy(res.Output))
	res.Reason = boundReason(res.Reason)
	if err != nil {
		return res, boundError(err)
	}
	switch res.Outcome {
	case api.ReconcileFound, api.ReconcileNotCreated, api.ReconcileCannotTell:
		return res, nil
	}
	// An answer the run cannot act on must not pass for not_created.
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell,
		Reason: boundReason(fmt.Sprintf("%s answered the unknown outcome %q", in.Tool, res.Outcome)), Output: res.Output}, nil
}

// registry is the worker's tools; Activities without any serve none, and
// every call is refused as a tool this worker does not have.
func (a *Activities) registry() *tools.Registry {
	if a.Tools == nil {
		return tools.NewRegistry()
	}
	return a.Tools
}

// offeredTools are the tools a model call offers: those of the agent it
// names, or, for a call outside a run that names none, its input's own.
func (a *Activities) offeredTools(in api.ModelInput) ([]api.ToolSpec, error) {
	if in.Agent == "" {
		return in.Tools, nil
	}
	reg := a.registry()
	agent, err := reg.Agent(in.Agent)
	if err != nil {
		// Another worker of the deployment may serve it: retryable.
		return nil, fmt.Errorf("model call: %w", err)
	}
	if in.PostsWithoutAsking != "" {
		return reg.SpecsWithoutAsking(agent, in.PostsWithoutAsking), nil
	}
	return reg.Specs(agent), nil
}

func (a *Activities) tool(in api.ToolInput) (tools.Tool, error) {
	t, ok := a.registry().Tool(in.Tool)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("tool %q is not registered on this worker", in.Tool), api.ErrTypeBadToolCall, nil)
	}
	return t, nil
}

// callOf is the call a tool gets. An input that names the approved preview
// by its digest gets the preview the action makes of the same arguments,
// and only when it is the approved one: a worker whose action would preview
// them otherwise must not act on an approval of another text.
func callOf(action tools.Action, in api.ToolInput) (tools.Call, error) {
	call := tools.Call{Args: in.Args, Target: in.Target, OperationKey: in.OperationKey, Approved: in.Approved, Attempt: in.Attempt}
	if in.KeyRecordedAt != nil {
		call.KeyRecordedAt = *in.KeyRecordedAt
	}
	if in.ApprovedSHA256 == "" || in.Approved != "" {
		return call, nil
	}
	if action == nil {
		return call, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: only an action is approved", in.Tool), api.ErrTypeInvalidInput, nil)
	}
	preview, err := action.Preview(call)
	if err != nil || api.PreviewDigest(preview) != in.ApprovedSHA256 {
		return call, tools.Rejected(fmt.Sprintf("%s: the call is not the one approved (its preview on this worker differs)", in.Tool), err)
	}
	call.Approved = preview
	return call, nil
}

// withoutSafeCopy leaves out a SafeOutput that is what the workflow makes
// of Content anyway (api.ToolOutput: empty means Content, redacted), so
// that the history does not record the same bytes twice.
func withoutSafeCopy(out api.ToolOutput) api.ToolOutput {
	if out.SafeOutput != nil && bytes.Equal(out.SafeOutput, redact.JSON(out.Content)) {
		out.SafeOutput = nil
	}
	return out
}
