package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// ExecuteTool runs one call of a registered tool, as the workflow checked it.
func (a *Activities) ExecuteTool(ctx context.Context, in api.ToolInput) (api.ToolOutput, error) {
	t, err := a.tool(in)
	if err != nil {
		return api.ToolOutput{}, err
	}
	if _, isAction := t.(tools.Action); isAction && in.OperationKey == "" {
		return api.ToolOutput{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: an action runs only under an operationKey", in.Tool), api.ErrTypeInvalidInput, nil)
	}
	return t.Execute(ctx, callOf(in))
}

// ReconcileTool asks a registered action whether its operationKey's effect
// happened.
func (a *Activities) ReconcileTool(ctx context.Context, in api.ToolInput) (api.ToolReconciliation, error) {
	t, err := a.tool(in)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	action, ok := t.(tools.Action)
	if !ok || in.OperationKey == "" {
		return api.ToolReconciliation{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: only an action with an operationKey reconciles", in.Tool), api.ErrTypeInvalidInput, nil)
	}
	res, err := action.Reconcile(ctx, callOf(in))
	if err != nil {
		return res, err
	}
	switch res.Outcome {
	case api.ReconcileFound, api.ReconcileNotCreated, api.ReconcileCannotTell:
		return res, nil
	}
	// An answer the run cannot act on must not pass for not_created.
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell,
		Reason: fmt.Sprintf("%s answered the unknown outcome %q", in.Tool, res.Outcome), Output: res.Output}, nil
}

func (a *Activities) registry() *tools.Registry {
	if a.Tools == nil {
		// Activities registered on their own (the workflow tests) serve the
		// built-in tools, as the workflow registered beside them does.
		return agents.MustBuiltin(NewGitHubAccess(a))
	}
	return a.Tools
}

// offeredTools are the tools a model call offers: its input's own (runs
// from before the registry), or those of the agent it names.
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

func callOf(in api.ToolInput) tools.Call {
	return tools.Call{Args: in.Args, Target: in.Target, OperationKey: in.OperationKey, Approved: in.Approved}
}
