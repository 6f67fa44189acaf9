package activities

import (
	"context"
	"fmt"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// GitHubAccess is the worker's GitHub access as the GitHub tools take it:
// the allowlist, the client and the bot's login of the Activities.
type GitHubAccess struct{ a *Activities }

// NewGitHubAccess is a's GitHub access, for ghtools.
func NewGitHubAccess(a *Activities) GitHubAccess { return GitHubAccess{a: a} }

// ClientFor implements ghtools.Access.
func (g GitHubAccess) ClientFor(op string, t api.Target) (*github.Client, error) {
	return g.a.clientFor(op, t)
}

// BotLogin implements ghtools.Access.
func (g GitHubAccess) BotLogin(ctx context.Context, gh *github.Client, op string) (string, error) {
	return g.a.botLogin(ctx, gh, op)
}

// githubClient gives each activity call its own go-github client over the
// configured transport. go-github remembers a rate limit in process memory and
// refuses requests locally until it resets by the wall clock; the workflow
// already waited the limit out on a durable timer, and another worker would
// not share that memory anyway, so every call asks GitHub afresh.
// clientFor is the GitHub client for an operation on t, refused before any
// request when t is outside the allowlist.
func (a *Activities) clientFor(op string, t api.Target) (*github.Client, error) {
	if err := a.checkAllowed(op, t); err != nil {
		return nil, err
	}
	return a.githubClient()
}

func (a *Activities) githubClient() (*github.Client, error) {
	if a.GitHub == nil {
		return nil, fmt.Errorf("no GitHub client configured")
	}
	c := github.NewClient(a.GitHub.Client())
	c.BaseURL = a.GitHub.BaseURL
	c.UploadURL = a.GitHub.UploadURL
	c.UserAgent = a.GitHub.UserAgent
	return c, nil
}

// targetRef names a pull request the way GitHub does: owner/repo#number.
func targetRef(t api.Target) string {
	return fmt.Sprintf("%s/%s#%d", t.Owner, t.Repo, t.PullNumber)
}
