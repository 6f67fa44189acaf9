package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// PermissionChecker tells a user's permission on a repository: "admin",
// "write", "read" or "none".
type PermissionChecker interface {
	Permission(ctx context.Context, owner, repo, login string) (string, error)
}

// GitHubPermissions asks the GitHub API.
type GitHubPermissions struct {
	Client *github.Client
}

func (g GitHubPermissions) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	level, _, err := g.Client.Repositories.GetPermissionLevel(ctx, owner, repo, login)
	if err != nil {
		// GitHub answers 404 for a user who is not a collaborator at all.
		var ghErr *github.ErrorResponse
		if errors.As(err, &ghErr) && ghErr.Response != nil && ghErr.Response.StatusCode == http.StatusNotFound {
			return "none", nil
		}
		return "", fmt.Errorf("permission of %s on %s/%s: %w", login, owner, repo, err)
	}
	return level.GetPermission(), nil
}

// requireWritePermission is the webhook's rule for a run without approvers:
// the commenter must be able to write to the repository.
func (s *Server) requireWritePermission(ctx context.Context, run api.Run, login string) (string, error) {
	if s.permissions == nil {
		return "the run names no approvers and this server cannot check GitHub permissions", nil
	}
	owner, name, ok := strings.Cut(run.Repo, "/")
	if !ok {
		return fmt.Sprintf("the run's repository %q is not owner/name", run.Repo), nil
	}
	permission, err := s.permissions.Permission(ctx, owner, name, login)
	if err != nil {
		return "", err
	}
	switch permission {
	case "admin", "maintain", "write":
		return "", nil
	}
	return fmt.Sprintf("%s has %s permission on %s; approving needs write", login, permission, run.Repo), nil
}
