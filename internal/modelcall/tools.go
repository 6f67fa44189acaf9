// Package modelcall is what the workflow gives a model call and how it reads
// the answer: the opening conversation and the call's input (the
// conversation inline or by reference); tools.Registry.Check checks each tool
// call. Only the workflow uses it; the names and types it fills in
// (api.ToolSpec, api.ModelInput) are the contract.
package modelcall

import (
	"slices"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// prReview is the built-in pr-review agent's first three tools: the
// reviewer's, which the model tests offer.
var prReview = func() []api.ToolSpec {
	reg := agents.MustBuiltin(nil)
	a, err := reg.Agent(agents.PRReview)
	if err != nil {
		panic(err)
	}
	a.Tools = a.Tools[:3]
	return reg.Specs(a)
}()

// Tools lists the pr-review agent's reviewing tools, in a fixed order. The
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
