// Package modelcall is what the workflow gives a model call and how it reads
// the answer: the opening conversation, the call's input (the conversation
// inline or by reference), and the check of each tool call that runs from
// before the tool registry made (tools.Registry.Check checks newer ones). Only the workflow uses it; the names and types it fills
// in (api.ToolSpec, api.ModelInput) are the contract.
package modelcall

import (
	"slices"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// prReview is the tools runs from before the registry had: the built-in
// pr-review agent's first three.
var prReview = func() []api.ToolSpec {
	reg := agents.MustBuiltin(nil)
	a, err := reg.Agent(agents.PRReview)
	if err != nil {
		panic(err)
	}
	a.Tools = a.Tools[:3]
	return reg.Specs(a)
}()

// Tools lists the pr-review agent's tools, in a fixed order: what runs from
// before the registry were offered, and what CheckToolCall knows. The
// target repository and pull request are pinned by the run, so no tool
// takes them as arguments.
func Tools() []api.ToolSpec {
	return slices.Clone(prReview)
}

// ToolByName finds a tool by name.
func ToolByName(name string) (api.ToolSpec, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return api.ToolSpec{}, false
}

// ToolNames names the tools a model call offers, for its step record.
func ToolNames(tools []api.ToolSpec) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
