// Package ghtools is agentrun's GitHub tools: reads of the run's pull
// request and the actions that write to it, each with its own way to
// reconcile (docs/tools.md).
package ghtools

import (
	"context"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// Access is what the tools need of the worker's GitHub access:
// *github.Access (package github) provides it. A registry built only to describe
// tools (the workflow's side) may pass nil: only Execute and Reconcile use
// it.
type Access interface {
	// ClientFor is the client for the target's repository, or an error (a
	// tools.Rejected one) when the worker may not touch that repository. op
	// names the operation in errors.
	ClientFor(op string, t api.Target) (*gogithub.Client, error)
	// BotLogin is the login the worker's token posts as: only something it
	// wrote can prove an operation.
	BotLogin(ctx context.Context, gh *gogithub.Client, op string) (string, error)
}
