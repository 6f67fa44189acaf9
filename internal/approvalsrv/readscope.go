package approvalsrv

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
	"github.com/agentrun/agentrun/runclient"
)

// A page person reads a run only if they requested it, may decide it, or
// GitHub lets them read its repository: a run's page shows the pull
// request's text, the model's output and previews of private repositories.
// Signed API clients are operators and read every run.

// readPermissionFreshFor is how long GitHub's answer on who may read a
// repository is believed: long enough that an inbox of one repository's
// runs asks once, short enough that a removed collaborator soon sees nothing.
const readPermissionFreshFor = time.Minute

// readPermissionEntries bounds the remembered answers (repository, login).
const readPermissionEntries = 4096

// runReaders is what decides who may read a run besides GitHub.
type runReaders struct {
	repo      string
	requester string
	approvers []string
}

func readersOfSnapshot(snap api.RunSnapshot) runReaders {
	who := runReaders{repo: snap.Run.Repo, requester: snap.Run.UserID, approvers: slices.Clone(snap.Run.Approvers)}
	for _, a := range snap.Actions {
		who.approvers = append(who.approvers, a.Approvers...)
	}
	if snap.PendingAction != nil {
		who.approvers = append(who.approvers, snap.PendingAction.Approvers...)
	}
	return who
}

func readersOfApproval(p runclient.PendingApproval) runReaders {
	return runReaders{repo: p.Repo, requester: p.RequestedBy, approvers: p.Approvers}
}

// canRead is GitHub's read permission or more.
func canRead(permission string) bool {
	return permission == "read" || permission == "triage" || api.CanApprove(permission)
}

// mayRead reports whether the page person login may see a run. Dev mode
// shows every run to everyone, as it lets reads through without a login.
func (s *Server) mayRead(ctx context.Context, login string, who runReaders) (bool, error) {
	if s.cfg.InsecureDev {
		return true, nil
	}
	if login == "" {
		return false, nil
	}
	if api.SameLogin(login, who.requester) || slices.ContainsFunc(who.approvers, func(a string) bool { return api.SameLogin(a, login) }) {
		return true, nil
	}
	owner, name, ok := strings.Cut(who.repo, "/")
	if !ok || s.readPermissions == nil {
		return false, nil
	}
	permission, err := s.readPermissions.permission(ctx, owner, name, login)
	if err != nil {
		return false, err
	}
	return canRead(permission), nil
}

// scopeToReaders guards a page route of one run: a person who may not read
// the run gets exactly what a run that does not exist answers, so that its
// existence is not revealed either.
func (s *Server) scopeToReaders(pattern string, next http.Handler) http.Handler {
	if !strings.Contains(pattern, "{runId}") {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.cfg.InsecureDev {
			next.ServeHTTP(w, r)
			return
		}
		runID := r.PathValue("runId")
		logger := s.logger.With("run", runID)
		reach, err := s.reach(r.Context(), runID)
		if err != nil {
			s.answerRunPage(w, r, pattern, temporalFailure(logger, err, "run query before a page"))
			return
		}
		if !reach.KnowsWho {
			// Who may read it is in the memo the run has not written yet.
			s.answerRunPage(w, r, pattern, refused(http.StatusServiceUnavailable, "no worker answers for this run yet, and who may read it is not known; try again later"))
			return
		}
		login := auth.IdentityFrom(r.Context())
		ok, err := s.mayRead(r.Context(), login, readersOfSnapshot(reach.Snapshot))
		switch {
		case err != nil:
			logger.Error("read permission check failed", "viewer", login, "err", err)
			s.answerRunPage(w, r, pattern, refused(http.StatusBadGateway, "could not check your permission to read this run; try again later"))
		case !ok:
			logger.Info("run hidden from a person who may not read it", "viewer", login)
			s.answerRunPage(w, r, pattern, temporalFailure(logger, fmt.Errorf("run %s: %w", runID, errRunNotFound), "run page"))
		default:
			next.ServeHTTP(w, r.WithContext(withReached(r.Context(), runID, reach)))
		}
	})
}

// answerRunPage answers o the way the route answers its own failures: a
// form as its answerForm does, a stream as JSON, a page as a page.
func (s *Server) answerRunPage(w http.ResponseWriter, r *http.Request, pattern string, o outcome) {
	switch {
	case r.Method == http.MethodPost:
		s.pages.answerForm(w, r, r.PathValue("runId"), o, false)
	case strings.HasSuffix(pattern, "/events"):
		writeOutcome(w, o)
	default:
		s.pages.pageError(w, o)
	}
}

// pageInbox is the shared inbox listing, cut to the runs the page person
// may read. A row whose permission cannot be checked is left out.
func (s *Server) pageInbox(ctx context.Context) ([]runclient.PendingApproval, error) {
	inbox, err := s.inbox.list(ctx)
	if err != nil || s.cfg.InsecureDev {
		return inbox, err
	}
	login := auth.IdentityFrom(ctx)
	readable := []runclient.PendingApproval{}
	for _, p := range inbox {
		ok, err := s.mayRead(ctx, login, readersOfApproval(p))
		if err != nil {
			s.logger.Warn("inbox row left out: read permission check failed", "run", p.RunID, "viewer", login, "err", err)
			continue
		}
		if ok {
			readable = append(readable, p)
		}
	}
	return readable, nil
}

// readableSnapshot is mayRead for the history page's rows.
func (s *Server) readableSnapshot(ctx context.Context, snap api.RunSnapshot) bool {
	login := auth.IdentityFrom(ctx)
	ok, err := s.mayRead(ctx, login, readersOfSnapshot(snap))
	if err != nil {
		s.logger.Warn("history row left out: read permission check failed", "run", snap.Run.ID, "viewer", login, "err", err)
	}
	return ok && err == nil
}

// permissionCache remembers GitHub's permission answers for
// readPermissionFreshFor. Failures are not kept.
type permissionCache struct {
	checker PermissionChecker
	now     func() time.Time

	mu      sync.Mutex
	entries map[permissionKey]cachedPermission
}

// permissionKey is lower-cased: GitHub's names compare without ASCII case.
type permissionKey struct{ repo, login string }

type cachedPermission struct {
	permission string
	until      time.Time
}

func newPermissionCache(checker PermissionChecker, now func() time.Time) *permissionCache {
	if checker == nil {
		return nil
	}
	return &permissionCache{checker: checker, now: now, entries: map[permissionKey]cachedPermission{}}
}

func (c *permissionCache) permission(ctx context.Context, owner, repo, login string) (string, error) {
	key := permissionKey{repo: strings.ToLower(owner + "/" + repo), login: strings.ToLower(login)}
	c.mu.Lock()
	cached, ok := c.entries[key]
	c.mu.Unlock()
	if ok && c.now().Before(cached.until) {
		return cached.permission, nil
	}
	permission, err := c.checker.Permission(ctx, owner, repo, login)
	if err != nil {
		return "", fmt.Errorf("read permission of %s on %s/%s: %w", login, owner, repo, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= readPermissionEntries {
		c.evict()
	}
	c.entries[key] = cachedPermission{permission: permission, until: c.now().Add(readPermissionFreshFor)}
	return permission, nil
}

// evict drops the stale answers, and when none is stale, one at random: the
// bound matters, not which answer is asked again.
func (c *permissionCache) evict() {
	now := c.now()
	for k, v := range c.entries {
		if !now.Before(v.until) {
			delete(c.entries, k)
		}
	}
	for k := range c.entries {
		if len(c.entries) < readPermissionEntries {
			break
		}
		delete(c.entries, k)
	}
}
