// Package reviewtools is the built-in pr-review agent's reviewing tools as
// a model call offers them, for the model tests (model/offline,
// model/openai, activities). It is a package of its own, not part of
// internal/testkit, because the kit links model/offline and activities,
// whose in-package tests use it; nothing that ships imports it.
package reviewtools

import (
	"slices"
	"sync"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// prReview is the pr-review agent's first three tools: the reviewer's.
var prReview = sync.OnceValue(func() []api.ToolSpec {
	reg := agents.MustBuiltin(nil)
	a, err := reg.Agent(agents.PRReview)
	if err != nil {
		panic(err)
	}
	a.Tools = a.Tools[:3]
	return reg.Specs(a)
})

// Tools lists the pr-review agent's reviewing tools, in a fixed order. The
// target repository and pull request are pinned by the run, so no tool
// takes them as arguments.
func Tools() []api.ToolSpec {
	return slices.Clone(prReview())
}

// ToolByName finds one of Tools by name.
func ToolByName(name string) (api.ToolSpec, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return api.ToolSpec{}, false
}
