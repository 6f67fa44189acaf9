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
	return s.requireWritePermissionFrom(ctx, run, login, doing, nil)
}

// requireWritePermissionFrom is requireWritePermission taking login's
// permission from early, a lookup started before the run was reached, when
// early asked about the run's repository and login; otherwise it asks.
func (s *Server) requireWritePermissionFrom(ctx context.Context, run api.Run, login, doing string, early *permissionLookup) (string, error) {
	if s.permissions == nil {
		return "the run names no approvers and this server cannot check GitHub permissions", nil
	}
	owner, name, ok := strings.Cut(run.Repo, "/")
	if !ok {
		return fmt.Sprintf("the run's repository %q is not owner/name", run.Repo), nil
	}
	var permission string
	var err error
	if early.answers(run.Repo, login) {
		permission, err = early.wait(ctx)
	} else {
		permission, err = s.permissions.Permission(ctx, owner, name, login)
	}
	if err != nil {
		return "", err
	}
	return api.RefuseWriter(login, permission, run.Repo, doing), nil
}

// permissionLookup is one lookup of a login's permission on a repository,
// under way while the handler reaches the run: a decision whose
// repository the delivery names need not wait for the run query and then
// for GitHub, one after the other.
type permissionLookup struct {
	repo, login string
	done        chan struct{}
	permission  string
	err         error
}

// lookUpPermission starts looking up login's permission on repo
// (owner/name); nil when this server cannot check permissions or repo is
// not owner/name. The lookup ends with ctx, the request's.
func (s *Server) lookUpPermission(ctx context.Context, repo, login string) *permissionLookup {
	owner, name, ok := strings.Cut(repo, "/")
	if s.permissions == nil || !ok || login == "" {
		return nil
	}
	l := &permissionLookup{repo: repo, login: login, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		l.permission, l.err = s.permissions.Permission(ctx, owner, name, login)
	}()
	return l
}

// answers: l is a lookup of login's permission on repo.
func (l *permissionLookup) answers(repo, login string) bool {
	return l != nil && l.repo == repo && l.login == login
}

func (l *permissionLookup) wait(ctx context.Context) (string, error) {
	select {
	case <-l.done:
		return l.permission, l.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}
