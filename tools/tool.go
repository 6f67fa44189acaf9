// Package tools is agentrun's tool registry: what a tool is, what an agent
// is, and the checks every call passes before anything runs. The workflow is
// generic over a Registry; a tool's own code (Execute, Reconcile) runs only in
// activities, its description (Spec, Preview, Touches) in the workflow too.
//
// A user's module registers its own tools and agents here and runs the
// workflow and worker over its Registry (docs/tools.md).
package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentrun/agentrun/api"
)

// Call is one call of a tool, as the tool sees it.
type Call struct {
	// Args are the call's arguments, already checked against the tool's
	// schema, as canonical JSON (an object; "{}" for none).
	Args json.RawMessage
	// Target is the run's target: a pull request, or a target of the kind
	// its agent takes (a chat channel, a ticket queue). Every tool is
	// pinned to it.
	Target api.Target
	// OperationKey is "<run id>:<step sequence>", recorded before the first
	// attempt. Side-effecting tools only: every attempt and every
	// reconciliation of one step carries the same key.
	OperationKey string
	// Approved is the preview the person approved, for an action that asked
	// one; the action must do exactly this and a reconcile accepts only it.
	Approved string
	// Attempt counts the step's attempts under OperationKey, from 1: the
	// attempt an Execute is, or the one a Reconcile looks after. Side-
	// effecting tools only; 0 for a call outside a run.
	Attempt int
	// KeyRecordedAt is when the run recorded OperationKey, in workflow
	// time: before the first attempt, so no effect of this key is older.
	// It is the same for every attempt and look of the step, across
	// retries and continue-as-new. A look that reads only the latest
	// records of a service proves "not created" only when what it read
	// reaches back past it (docs/tools.md, "list latest N"). Zero when
	// unknown (a run recorded before it): such a look cannot tell.
	KeyRecordedAt time.Time
}

// DecodeArgs reads the call's arguments into v, refusing a field v does not
// name: Check held them to the tool's schema, and a tool reads only what it
// declared.
func (c Call) DecodeArgs(v any) error {
	dec := json.NewDecoder(bytes.NewReader(c.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("read the arguments: %w", err)
	}
	return nil
}

// Tool is a tool the model may call. A Tool that is not an Action reads:
// Execute may run any number of times, concurrently with the run's other
// reads, and Temporal retries it.
type Tool interface {
	// Spec names and describes the tool, with its arguments' JSON schema.
	// It must not change while a worker runs.
	Spec() api.ToolSpec
	// Execute runs the tool (in an activity). An error built by Rejected
	// proves nothing happened; any other error of an Action leaves its
	// outcome unknown, which the run reconciles.
	Execute(ctx context.Context, call Call) (api.ToolOutput, error)
}

// Action is a tool that changes the outside world. It runs under an
// operationKey, never blindly twice: after an unknown outcome the run asks
// Reconcile, and retries with the same key only when Reconcile says
// not_created.
type Action interface {
	Tool
	// Preview is the exact text a person approves. It runs in the workflow,
	// so it must be deterministic: no clock, no I/O, no map order.
	Preview(call Call) (string, error)
	// Touches names what the action changes as a person reads it
	// ("acme/widgets#12", "#releases", "T-1001"). It runs in the workflow;
	// an error refuses the call (for example, a call aimed outside the
	// run's target).
	Touches(call Call) (string, error)
	// Reconcile says whether the action under call.OperationKey happened:
	// found (with the result), not_created, or cannot_tell (with why). It
	// must never answer not_created when it could not look.
	Reconcile(ctx context.Context, call Call) (api.ToolReconciliation, error)
}

// Gate says when an action asks a person first.
type Gate string

// Gates.
const (
	// AlwaysAsk: every call waits for a named, authorized approver.
	AlwaysAsk Gate = "always"
	// NeverAsk: the action runs at once, still under its operationKey and
	// reconciled; for actions whose every possible effect is harmless.
	NeverAsk Gate = "never"
	// AgentDecides: the agent's AgentTool.Ask says, and for a Scoped
	// action that does not Ask, its AgentTool.Allow (Approval).
	AgentDecides Gate = "agent"
)

// ErrNotApproved is CheckApproved's refusal.
var ErrNotApproved = errors.New("not the approved call")

// CheckApproved says whether an action may act on call: the call has its
// operationKey and, when a person approved it, the action's preview of it
// is the text approved. An Execute refuses a call that is not with
// Rejected (nothing happened); a Reconcile answers cannot_tell, since no
// effect of another call can prove this one.
func CheckApproved(a Action, call Call) error {
	preview, err := a.Preview(call)
	switch {
	case err != nil:
		return fmt.Errorf("%w: %w", ErrNotApproved, err)
	case call.OperationKey == "":
		return fmt.Errorf("%w: it has no operationKey", ErrNotApproved)
	case call.Approved != "" && call.Approved != preview:
		return fmt.Errorf("%w: its arguments are not the ones approved", ErrNotApproved)
	}
	return nil
}
