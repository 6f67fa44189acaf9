package activities

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// CheckRepoPermission asks GitHub for a person's permission on a
// repository. The workflow runs it for every decision on a run without
// approvers, so that the check is in the run's history whichever channel the
// decision came through.
func (a *Activities) CheckRepoPermission(ctx context.Context, in RepoPermissionInput) (RepoPermission, error) {
	gh, err := a.githubClient()
	if err != nil {
		return RepoPermission{}, err
	}
	permission, err := PermissionOf(ctx, gh, in.Owner, in.Repo, in.Login)
	if err != nil {
		return RepoPermission{}, err
	}
	return RepoPermission{Permission: permission}, nil
}

// PermissionOf is GET /repos/{owner}/{repo}/collaborators/{login}/permission.
// GitHub answers 404 for a login that is no collaborator (or no user at
// all), which is "none", not an error. Other failures are classified as the
// tools' are: a 401 or 403 is never retried, a rate limit waits.
func PermissionOf(ctx context.Context, gh *github.Client, owner, repo, login string) (string, error) {
	level, _, err := gh.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		var ghErr *github.ErrorResponse
		if errors.As(err, &ghErr) && ghErr.Response != nil && ghErr.Response.StatusCode == http.StatusNotFound {
			return "none", nil
		}
		return "", classifyGitHubError(fmt.Sprintf("permission of %s on %s/%s", login, owner, repo), err)
	}
	return level.GetPermission(), nil
}
