package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gogithub "github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// Access is a process's one way into GitHub: a go-github client per
// target repository, the repositories it may touch (AGENT_ALLOWED_REPOS)
// and the login its credentials post as. The GitHub tools (ghtools), the
// permission activity and the approval server take it. How requests are
// authenticated is this package's business alone: one token for every
// repository (NewAccess, token mode), or a GitHub App's installation
// tokens, the installation chosen by the repository (NewAppAccess, app.go).
//
// A nil *Access is a process without GitHub: every request it is asked for
// fails, before any network traffic.
type Access struct {
	clients clientSource
	allowed RepoAllowlist
	// botLogin is set once at start-up (GITHUB_BOT_LOGIN, or Identify);
	// empty, every BotLogin asks GET /user.
	botLogin string
	baseURL  string
	// whoAmI reads the login the credentials post as; nil asks GET /user
	// (token mode). App mode reads the app's bot login from GET /app.
	whoAmI  func(context.Context) (string, error)
	appMode bool
}

// clientSource is the client for a repository (and, in app mode, the
// installation on it when the run knows it; zero looks it up): a fresh one per call, so
// that nothing one call learns (go-github's remembered rate limit, which it
// enforces locally by the wall clock) outlives it; the workflow already
// waited a limit out on a durable timer, and another worker would not
// share that memory anyway.
type clientSource func(owner, repo string, installation int64) (*gogithub.Client, error)

// NewAccess is the access over client (NewClient: GITHUB_API_URL and
// GITHUB_TOKEN) for every repository allowed lets through (all, when it is
// empty). botLogin is the login the token posts as; empty, it is asked of
// GitHub (Identify, or each BotLogin).
func NewAccess(client *gogithub.Client, allowed RepoAllowlist, botLogin string) *Access {
	tokenClient := func(string, string, int64) (*gogithub.Client, error) {
		c := gogithub.NewClient(client.Client())
		c.BaseURL, c.UploadURL, c.UserAgent = client.BaseURL, client.UploadURL, client.UserAgent
		return c, nil
	}
	return &Access{clients: tokenClient, allowed: allowed, botLogin: botLogin, baseURL: client.BaseURL.String()}
}

// ErrLoginMismatch is a bot login given at start-up that is not the one the
// credentials post as: the worker would never recognise its own comments.
var ErrLoginMismatch = errors.New("the configured bot login is not the credentials' own")

// errNoAccess is every request of a process without GitHub.
var errNoAccess = errors.New("no GitHub client configured")

// BaseURL is the REST root requests go to, for start-up logs.
func (a *Access) BaseURL() string {
	if a == nil {
		return ""
	}
	return a.baseURL
}

// Login is the login the credentials post as, as far as known: set at
// start-up or learnt by Identify; "" before.
func (a *Access) Login() string {
	if a == nil {
		return ""
	}
	return a.botLogin
}

// ClientFor is the client for an operation on t, refused before any
// request when t is outside the allowlist (a non-retryable
// api.ErrTypeTargetNotAllowed), so that a run started against another
// repository touches nothing there. op names the operation in errors.
func (a *Access) ClientFor(op string, t api.Target) (*gogithub.Client, error) {
	if a == nil {
		return nil, errNoAccess
	}
	if !a.allowed.Allows(t) {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: %s/%s is not among this worker's allowed repositories (AGENT_ALLOWED_REPOS)", op, t.Owner, t.Repo),
			api.ErrTypeTargetNotAllowed, nil)
	}
	return a.clients(t.Owner, t.Repo, t.InstallationID)
}

// AppMode reports whether the access authenticates as a GitHub App.
func (a *Access) AppMode() bool { return a != nil && a.appMode }

// Permission is login's permission on owner/repo (PermissionOf). A
// permission read is not the tools' business, so the allowlist does not
// apply: an approver's right is GitHub's answer wherever the run is.
func (a *Access) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	if a == nil {
		return "", errNoAccess
	}
	gh, err := a.clients(owner, repo, 0)
	if err != nil {
		return "", err
	}
	return PermissionOf(ctx, gh, owner, repo, login)
}

// Identify learns the login the credentials post as from GET /user, unless
// it was given: only comments by that login prove an operation. In app
// mode it always reads the app (GET /app), which also proves the app ID
// and key, and refuses a given login that is not the app's bot. A worker
// calls it once at start-up, before the access is shared.
func (a *Access) Identify(ctx context.Context) error {
	if a == nil {
		return errNoAccess
	}
	if a.whoAmI != nil {
		login, err := a.whoAmI(ctx)
		if err != nil {
			return err
		}
		if a.botLogin != "" && !strings.EqualFold(a.botLogin, login) {
			return fmt.Errorf("%w: GITHUB_BOT_LOGIN is %q, but the GitHub App posts as %q: unset GITHUB_BOT_LOGIN in app mode",
				ErrLoginMismatch, a.botLogin, login)
		}
		a.botLogin = login
		return nil
	}
	if a.botLogin != "" {
		return nil
	}
	gh, err := a.clients("", "", 0)
	if err != nil {
		return err
	}
	login, err := authenticatedLogin(ctx, gh, "learn the worker's GitHub identity")
	if err != nil {
		return err
	}
	a.botLogin = login
	return nil
}

// BotLogin is the login the credentials post as, over a client the caller
// already has. An access built without one (tests, embedders who skip
// Identify) pays one GET /user per call rather than caching it: an
// identity learnt once and kept in a hidden field would outlive a token
// rotation unnoticed. op names the operation for the error, which is
// returned unwrapped: Temporal reads only the outermost error's type.
func (a *Access) BotLogin(ctx context.Context, gh *gogithub.Client, op string) (string, error) {
	if a != nil && a.botLogin != "" {
		return a.botLogin, nil
	}
	if a != nil && a.whoAmI != nil {
		login, err := a.whoAmI(ctx)
		if err != nil {
			return "", ClassifyError(op, err)
		}
		return login, nil
	}
	return authenticatedLogin(ctx, gh, op)
}

func authenticatedLogin(ctx context.Context, gh *gogithub.Client, op string) (string, error) {
	op += ": read the token's own user (GET /user)"
	user, _, err := gh.Users.Get(ctx, "")
	if err != nil {
		return "", ClassifyError(op, err)
	}
	if user.GetLogin() == "" {
		return "", fmt.Errorf("%s: the answer names no login", op)
	}
	return user.GetLogin(), nil
}

// PullHead is a pull request's head commit and whether it is a draft and
// open, as GitHub answers now: what a review started by hand needs. Like
// Permission it is not the tools' business, so the allowlist does not
// apply; installation, when known, is the delivery's (app mode).
func (a *Access) PullHead(ctx context.Context, owner, repo string, number int, installation int64) (sha string, draft, open bool, err error) {
	if a == nil {
		return "", false, false, errNoAccess
	}
	gh, err := a.clients(owner, repo, installation)
	if err != nil {
		return "", false, false, err
	}
	pr, _, err := gh.PullRequests.Get(ctx, owner, repo, number)
	if err != nil {
		return "", false, false, ClassifyError(fmt.Sprintf("read %s/%s#%d", owner, repo, number), err)
	}
	return pr.GetHead().GetSHA(), pr.GetDraft(), pr.GetState() == "open", nil
}
