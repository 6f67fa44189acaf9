package ghtools

import (
	"context"
	"errors"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// action is the shape the GitHub actions with schema-checked arguments
// share: the schema is checked again in the activity, the preview is made
// from the checked arguments, and an attempt or a reconciliation works only
// for the call that was approved. What makes each action its own is in rules.
type action[A any] struct {
	acc         Access
	name        string
	description string
	schema      argsSchema
	rules       actionRules[A]
}

// actionRules are one action's own rules over its arguments A.
type actionRules[A any] interface {
	// check applies the action's rules to arguments the schema accepted.
	check(a A) error
	// pin names what on the run's target t the action changes, or refuses
	// a target that does not name it: the action touches nothing else.
	pin(t api.Target) (ref string, err error)
	// preview is the text a person approves: a's change to ref.
	preview(ref string, a A) string
	// touches is what a person is told the action changes.
	touches(ref string) string
	// words are how people read the action (api.ToolWords).
	words() api.ToolWords
	// previewKind says how a page shows the preview (api.PreviewKind).
	previewKind() api.PreviewKind
	// ops name an attempt and a reconciliation of call in errors.
	ops(call tools.Call) (execute, reconcile string)
	// effect is what an approved call changes on GitHub.
	effect(op string, call tools.Call, a A) effect
}

// effect makes an approved call's change once, or says whether it was made.
type effect interface {
	execute(ctx context.Context, acc Access) (api.ToolOutput, error)
	reconcile(ctx context.Context, acc Access) (api.ToolReconciliation, error)
}

func newAction[A any](acc Access, name, description string, schema argsSchema, rules actionRules[A]) tools.Action {
	return action[A]{acc: acc, name: name, description: description, schema: schema, rules: rules}
}

func (x action[A]) Spec() api.ToolSpec {
	return api.ToolSpec{Name: x.name, Description: x.description, Parameters: x.schema.raw, SideEffect: true, Words: x.rules.words(),
		PreviewKind: x.rules.previewKind()}
}

func (x action[A]) parse(call tools.Call) (A, string, error) {
	var a A
	if err := x.schema.decode(call.Args, &a); err != nil {
		return a, "", err
	}
	if err := x.rules.check(a); err != nil {
		return a, "", err
	}
	ref, err := x.rules.pin(call.Target)
	if err != nil {
		return a, "", err
	}
	return a, x.rules.preview(ref, a), nil
}

func (x action[A]) Preview(call tools.Call) (string, error) {
	_, preview, err := x.parse(call)
	return preview, err
}

func (x action[A]) Touches(call tools.Call) (string, error) {
	ref, err := x.rules.pin(call.Target)
	if err != nil {
		return "", err
	}
	return x.rules.touches(ref), nil
}

// Execute refuses a call that is not the approved one before it looks at
// GitHub: nothing happened, so the refusal is proven.
func (x action[A]) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	op, _ := x.rules.ops(call)
	a, err := x.approved(call)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(op+": "+err.Error(), nil)
	}
	return x.rules.effect(op, call, a).execute(ctx, x.acc)
}

// Reconcile says cannot_tell for a call that is not the approved one: no
// effect of another call can prove this one.
func (x action[A]) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	_, op := x.rules.ops(call)
	a, err := x.approved(call)
	if err != nil {
		return cannotTell(op+": "+err.Error(), nil), nil
	}
	return x.rules.effect(op, call, a).reconcile(ctx, x.acc)
}

// approved reads the arguments of an attempt or a reconciliation and checks
// what both need before they look at GitHub: an operationKey, and that the
// call is the one approved (its preview is the text the person approved).
func (x action[A]) approved(call tools.Call) (A, error) {
	a, preview, err := x.parse(call)
	switch {
	case err != nil:
		return a, err
	case call.OperationKey == "":
		return a, errors.New("the call has no operationKey")
	case call.Approved != "" && call.Approved != preview:
		return a, errors.New("the call's arguments are not the ones approved")
	}
	return a, nil
}
