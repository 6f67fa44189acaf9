package agents

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentrun/agentrun/tools"
)

// ErrNeedsGitHub is the refusal of a registry without GitHub that would
// serve a GitHub tool: the worker has no credentials to run it with.
var ErrNeedsGitHub = errors.New("this worker has no GitHub: set GITHUB_TOKEN (and GITHUB_API_URL for the sandbox or GitHub Enterprise)")

// WithoutGitHub is the registry of a worker with no GitHub access: the
// extensions' tools and agents alone, none of the GitHub tools and so none
// of the built-in agents, which read and write pull requests. An agent that
// names a GitHub tool, or a grant to a built-in agent, is refused with
// ErrNeedsGitHub, naming it: at start-up, rather than failing its runs one by
// one.
func WithoutGitHub(extensions ...Extension) (*tools.Registry, error) {
	github := MustBuiltin(nil)
	r := tools.NewRegistry()
	own, grants, err := addExtensions(r, extensions, func(name string) error {
		if _, isGitHub := github.Tool(name); isGitHub {
			return fmt.Errorf("tool %q: the name is a GitHub tool's", name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		i := slices.IndexFunc(own, func(a tools.Agent) bool { return a.Name == g.Agent })
		if i < 0 {
			if _, err := github.Agent(g.Agent); err == nil {
				return nil, fmt.Errorf("tool %q is granted to the built-in agent %s, which uses GitHub tools: %w", g.Tool.Name, g.Agent, ErrNeedsGitHub)
			}
			return nil, fmt.Errorf("tool %q is granted to agent %q, which is not defined", g.Tool.Name, g.Agent)
		}
		own[i].Tools = append(slices.Clip(own[i].Tools), g.Tool)
	}
	for _, a := range own {
		for _, at := range a.Tools {
			if _, isGitHub := github.Tool(at.Name); isGitHub {
				return nil, fmt.Errorf("agent %s uses the GitHub tool %s: %w", a.Name, at.Name, ErrNeedsGitHub)
			}
		}
		if err := r.AddAgent(a); err != nil {
			return nil, err
		}
	}
	if len(own) == 0 {
		return nil, errors.New("no agent to serve: without GitHub a worker serves only agents of its own")
	}
	return r, nil
}
