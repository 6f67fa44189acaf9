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

// requireWritePermission is the rule for a run without approvers
// (api.RefuseWriter): login must be able to write to the repository to do
// what doing names ("approving", "cancelling").
func (s *Server) requireWritePermission(ctx context.Context, run api.Run, login, doing string) (string, error) {
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
	return api.RefuseWriter(login, permission, run.Repo, doing), nil
}
