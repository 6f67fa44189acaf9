package activities

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
)

// GitHubIdentity is the login the worker's token posts as: BotLogin when it
// is set, otherwise what GET /user answers. The worker calls it once at
// start-up and keeps the answer in BotLogin.
func (a *Activities) GitHubIdentity(ctx context.Context) (string, error) {
	if a.BotLogin != "" {
		return a.BotLogin, nil
	}
	gh, err := a.githubClient()
	if err != nil {
		return "", err
	}
	return authenticatedLogin(ctx, gh, "learn the worker's GitHub identity")
}

// botLogin is GitHubIdentity over a client the caller already has. Activities
// built without BotLogin (tests, embedders) pay one GET /user per call rather
// than caching it: the struct is copied and shared, and an identity learnt
// once and kept in a hidden field would outlive a token rotation unnoticed.
// op names the operation for the error, which is returned unwrapped: Temporal
// reads only the outermost error's type.
func (a *Activities) botLogin(ctx context.Context, gh *github.Client, op string) (string, error) {
	if a.BotLogin != "" {
		return a.BotLogin, nil
	}
	return authenticatedLogin(ctx, gh, op)
}

func authenticatedLogin(ctx context.Context, gh *github.Client, op string) (string, error) {
	op += ": read the token's own user (GET /user)"
	user, _, err := gh.Users.Get(ctx, "")
	if err != nil {
		return "", ghapi.ClassifyError(op, err)
	}
	if user.GetLogin() == "" {
		return "", fmt.Errorf("%s: the answer names no login", op)
	}
	return user.GetLogin(), nil
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// RepoAllowlist is the set of repositories a worker may touch, as lower-cased
// "owner/repo". An empty list allows every repository.
type RepoAllowlist []string

// ParseRepoAllowlist reads a comma-separated list of owner/repo names, as
// AGENT_ALLOWED_REPOS holds it. Blank around entries is ignored; an entry that
// is not owner/repo is an error, so that a typo does not silently shut the
// worker out of the repository it was meant for (or, worse, allow all).
func ParseRepoAllowlist(raw string) (RepoAllowlist, error) {
	if raw == "" {
		return nil, nil
	}
	var list RepoAllowlist
	for i, entry := range strings.Split(raw, ",") {
		entry = strings.TrimSpace(entry)
		owner, repo, ok := strings.Cut(entry, "/")
		if !ok || !validRepoNamePart(owner) || !validRepoNamePart(repo) {
			return nil, fmt.Errorf("entry %d %q is not owner/repo (letters, digits, '-', '_' and '.')", i+1, entry)
		}
		list = append(list, asciiLowerString(entry))
	}
	return list, nil
}

// validRepoNamePart accepts the characters GitHub allows in owner and
// repository names; a wildcard or a URL is refused rather than half-understood.
func validRepoNamePart(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

func asciiLowerString(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = asciiLower(c)
	}
	return string(b)
}

// Allows reports whether t's repository is on the list (or the list is empty).
func (l RepoAllowlist) Allows(t api.Target) bool {
	if len(l) == 0 {
		return true
	}
	want := t.Owner + "/" + t.Repo
	for _, entry := range l {
		if api.SameLogin(entry, want) {
			return true
		}
	}
	return false
}

// checkAllowed refuses a target outside the allowlist before any request,
// so that a run started against another repository touches nothing there.
func (a *Activities) checkAllowed(op string, t api.Target) error {
	if a.AllowedRepos.Allows(t) {
		return nil
	}
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("%s: %s/%s is not among this worker's allowed repositories (AGENT_ALLOWED_REPOS)", op, t.Owner, t.Repo),
		api.ErrTypeTargetNotAllowed, nil)
}
