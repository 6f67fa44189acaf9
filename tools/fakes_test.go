package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// readTool is a tool that only reads.
type readTool struct{ spec api.ToolSpec }

func (r readTool) Spec() api.ToolSpec { return r.spec }

func (readTool) Execute(context.Context, tools.Call) (api.ToolOutput, error) {
	return api.ToolOutput{}, nil
}

// actionTool is an action whose Preview and Touches say what the test set,
// and record the call they were given.
type actionTool struct {
	readTool
	preview, touches       string
	previewErr, touchesErr error
	seen                   *[]tools.Call
}

func (a actionTool) Preview(call tools.Call) (string, error) {
	if a.seen != nil {
		*a.seen = append(*a.seen, call)
	}
	return a.preview, a.previewErr
}

func (a actionTool) Touches(tools.Call) (string, error) { return a.touches, a.touchesErr }

func (actionTool) Reconcile(context.Context, tools.Call) (api.ToolReconciliation, error) {
	return api.ToolReconciliation{}, errors.New("not reconciled in these tests")
}

// scopedTool is a Scoped action over the "labels" argument.
type scopedTool struct{ actionTool }

func (scopedTool) Scope() string { return "labels" }

func (scopedTool) Allowed(call tools.Call, allow []string) bool {
	var a struct{ Labels []string }
	if json.Unmarshal(call.Args, &a) != nil {
		return false
	}
	for _, l := range a.Labels {
		if !slices.Contains(allow, l) {
			return false
		}
	}
	return true
}

const objectSchema = `{"type":"object","properties":{"q":{"type":"string"}},"additionalProperties":false}`

func reader(name string) readTool {
	return readTool{api.ToolSpec{Name: name, Description: "Read " + name + ".", Parameters: json.RawMessage(objectSchema)}}
}

func action(name, schema string) actionTool {
	return actionTool{
		readTool: readTool{api.ToolSpec{Name: name, Description: "Do " + name + ".", Parameters: json.RawMessage(schema), SideEffect: true}},
		preview:  "the exact text", touches: "acme/widgets#1",
	}
}
