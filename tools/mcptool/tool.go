package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// base is what every converted tool shares: its server and its MCP name.
type base struct {
	conn    *Conn
	mcpName string
	spec    api.ToolSpec
}

func (b base) Spec() api.ToolSpec { return b.spec }

// run calls the tool. A result the server marked isError fails the step as
// tools.Rejected: the server answered, and the model reads its answer. (For
// an action that is the server's word that it refused; a server that errs
// after acting breaks MCP's contract, which trusting it accepts.)
func (b base) run(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	out, text, isError, err := b.result(ctx, call)
	if err != nil {
		return api.ToolOutput{}, err
	}
	if isError {
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf("%s.%s failed: %s", b.conn.server.Name, b.mcpName, api.TruncateUTF8(text, maxErrorText)), nil)
	}
	return out, nil
}

// result calls the tool and reads its result: the output, the server's
// text, and whether the server marked the result isError.
func (b base) result(ctx context.Context, call tools.Call) (out api.ToolOutput, text string, isError bool, err error) {
	res, err := b.conn.call(ctx, b.mcpName, call.Args, call.OperationKey, !b.spec.SideEffect)
	if err != nil {
		return api.ToolOutput{}, "", false, err
	}
	out, text, err = output(res)
	if err != nil {
		return api.ToolOutput{}, "", false, fmt.Errorf("result of %s.%s: %w", b.conn.server.Name, b.mcpName, err)
	}
	return out, text, res.IsError, nil
}

// readTool is a tool its server calls read-only: Temporal may run it any
// number of times.
type readTool struct{ base }

func (t readTool) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	return t.run(ctx, call)
}

// action is what both kinds of MCP action share: the preview and what they
// touch.
type action struct{ base }

// Preview is the exact call: server.tool(<canonical arguments>).
func (a action) Preview(call tools.Call) (string, error) {
	var args bytes.Buffer
	if err := json.Compact(&args, call.Args); err != nil {
		return "", fmt.Errorf("%s: arguments are not JSON: %w", a.spec.Name, err)
	}
	return fmt.Sprintf("%s.%s(%s)", a.conn.server.Name, a.mcpName, args.String()), nil
}

// Touches is the server: agentrun cannot see what an MCP tool changes.
func (a action) Touches(tools.Call) (string, error) {
	return "mcp:" + a.conn.server.Name, nil
}

// Execute runs exactly the approved call, never another.
func (a action) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	if why := a.notApproved(call); why != "" {
		return api.ToolOutput{}, tools.Rejected(why, nil)
	}
	return a.run(ctx, call)
}

func (a action) notApproved(call tools.Call) string {
	if call.Approved == "" {
		return ""
	}
	preview, err := a.Preview(call)
	if err != nil || preview != call.Approved {
		return fmt.Sprintf("%s: the call is not the one approved", a.spec.Name)
	}
	return ""
}

// repeatAction is a tool its server calls idempotent: repeating the call is
// its reconciliation, and its result is the step's.
type repeatAction struct{ action }

func (a repeatAction) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	if why := a.notApproved(call); why != "" {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: why}, nil
	}
	out, text, isError, err := a.result(ctx, call)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	if isError {
		// The repeat was refused: the first call may have run or not.
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell,
			Reason: "repeating the idempotent MCP call failed: " + api.TruncateUTF8(text, maxErrorText)}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: out}, nil
}

// askAction is any other tool: nothing says whether a lost call ran.
type askAction struct{ action }

const cannotTellAsk = "the MCP tool is neither read-only nor idempotent: an operator must say whether it ran"

func (askAction) Reconcile(context.Context, tools.Call) (api.ToolReconciliation, error) {
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: cannotTellAsk}, nil
}
