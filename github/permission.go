package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	gogithub "github.com/google/go-github/v62/github"
)

// PermissionOf is GET /repos/{owner}/{repo}/collaborators/{login}/permission:
// admin, maintain, write, triage, read or none. The worker's
// CheckRepoPermission activity and the approval server's early check both
// ask through it, so that they read GitHub's answer the same way.
// GitHub answers 404 for a login that is no collaborator (or no user at
// all), which is "none", not an error. Other failures are classified as the
// tools' are: a 401 or 403 is never retried, a rate limit waits.
func PermissionOf(ctx context.Context, gh *gogithub.Client, owner, repo, login string) (string, error) {
	level, _, err := gh.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		var ghErr *gogithub.ErrorResponse
		if errors.As(err, &ghErr) && ghErr.Response != nil && ghErr.Response.StatusCode == http.StatusNotFound {
			return "none", nil
		}
		return "", ClassifyError(fmt.Sprintf("permission of %s on %s/%s", login, owner, repo), err)
	}
	return level.GetPermission(), nil
}
