// Command customtool is a worker of agentrun runs with tools of its own:
// the built-in tools and agents, plus post_release_note and the
// release-notes agent that uses it (docs/tools.md walks through it). It is
// the real worker (agentworker.Main) with them added, so it reads what the
// real worker reads (`customtool --help` lists it) and does what it does;
// TICKETS_URL, when set, names a ticket service and adds create_ticket and
// the tickets agent. With no GitHub variable set it has no GitHub at all
// and serves the tickets agent alone.
package main

import (
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/agentworker"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/tools/ghtools"
)

func main() { agentworker.Main(options) }

// options are the example's tools, agents, setting and stand-in model.
var options = agentworker.Options{
	Program: "customtool",
	Settings: []agentworker.Setting{{Name: "TICKETS_URL",
		Description: "the ticket service create_ticket files in (http:// or https://); default none, and no tickets agent"}},
	Extend: func(h agentworker.Host) ([]agents.Extension, error) {
		var acc ghtools.Access // an interface: a nil *github.Access must stay nil
		if h.GitHub != nil {
			acc = h.GitHub
		}
		return extensions(acc, h.Getenv("TICKETS_URL"))
	},
	// The stand-in model drives the example's agents and hands the others
	// to MODEL_PROVIDER's model.
	Model: func(provider model.Model) model.Model { return noteWriter{next: provider} },
}
