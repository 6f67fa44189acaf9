package approvalsrv

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// PermissionChecker tells a user's permission on a repository (the
// process's *github.Access answers it): "admin",
// "write", "read" or "none".
type PermissionChecker interface {
	Permission(ctx context.Context, owner, repo, login string) (string, error)
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
