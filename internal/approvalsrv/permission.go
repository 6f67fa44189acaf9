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
