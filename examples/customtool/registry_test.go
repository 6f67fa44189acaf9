package main

import (
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// newRegistry is the registry the worker builds of the example's
// extensions: over the built-in one with GitHub (agents.BuiltinWith), alone
// without (agents.WithoutGitHub).
func newRegistry(acc ghtools.Access, ticketsURL string) (*tools.Registry, error) {
	exts, err := extensions(acc, ticketsURL)
	if err != nil {
		return nil, err
	}
	if acc == nil {
		return agents.WithoutGitHub(exts...)
	}
	return agents.BuiltinWith(acc, exts...)
}
