package approvalsrv

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	agithub "github.com/agentrun/agentrun/github"
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

// Permission reads GitHub's answer the way the workflow's own permission
// check does (a 404 is "none"), through the one shared call.
func (g GitHubPermissions) Permission(ctx context.Context, owner, repo, login string) (string, error) {
	return agithub.PermissionOf(ctx, g.Client, owner, repo, login)
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
	if api.CanApprove(permission) {
		return "", nil
	}
	return fmt.Sprintf("%s has %s permission on %s; approving needs write", login, permission, run.Repo), nil
}
