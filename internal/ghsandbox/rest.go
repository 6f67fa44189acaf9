package ghsandbox

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
)

// pathNumber is the {number} of the path, or false when it is not a
// positive integer (GitHub answers those 404).
func pathNumber(r *http.Request) (int, bool) {
	number, err := strconv.Atoi(r.PathValue("number"))
	return number, err == nil && number > 0
}

// onPull answers with answer, under s.mu, for the pull request the path
// names, or with GitHub's 404 and the operation's documentation link.
func (s *Server) onPull(docs string, answer func(*http.Request, *repoState, *pullState) wire.Response) func(*http.Request) wire.Response {
	return func(r *http.Request) wire.Response {
		number, ok := pathNumber(r)
		if !ok {
			return wire.NotFound(docs)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		rs, ps, ok := s.pullLocked(r.PathValue("owner"), r.PathValue("repo"), number)
		if !ok {
			return wire.NotFound(docs)
		}
		return answer(r, rs, ps)
	}
}

// onRepo is onPull for the repository the path names.
func (s *Server) onRepo(docs string, answer func(*http.Request, *repoState) wire.Response) func(*http.Request) wire.Response {
	return func(r *http.Request) wire.Response {
		s.mu.Lock()
		defer s.mu.Unlock()
		rs, ok := s.repos[repoID(r.PathValue("owner"), r.PathValue("repo"))]
		if !ok {
			return wire.NotFound(docs)
		}
		return answer(r, rs)
	}
}

// exists reports whether the path's repository, and its issue or pull
// request when the path has a number, exist. Nothing is ever deleted, so a
// handler may check this before reading the body and act on it after.
func (s *Server) exists(r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	rs, ok := s.repos[repoID(r.PathValue("owner"), r.PathValue("repo"))]
	if !ok || r.PathValue("number") == "" {
		return ok
	}
	number, ok := pathNumber(r)
	return ok && (rs.pulls[number] != nil || rs.issues[number] != nil)
}

// decodeWrite reads the body of a write into in once its target exists (the
// repository, and the issue or pull request when the path numbers one): as
// on GitHub, an unknown target is a 404 whatever the body.
func (s *Server) decodeWrite(r *http.Request, docs string, in any) (wire.Response, bool) {
	if !s.exists(r) {
		return wire.NotFound(docs), false
	}
	return wire.DecodeBody(r, docs, in)
}

// notStored is GitHub's answer when it could not store something; the
// message helps whoever reads the sandbox's side of a failed run.
func notStored(docs string, err error) wire.Response {
	return wire.Error(http.StatusInternalServerError, "Server Error: "+err.Error(), docs)
}

func getPullRequest(r *http.Request, rs *repoState, ps *pullState) wire.Response {
	return wire.JSON(http.StatusOK, wire.NewPullRequest(wire.BasesOf(r), rs.ref(), rs.pullFacts(ps), rs.openIssues()))
}

func listFiles(r *http.Request, rs *repoState, ps *pullState) wire.Response {
	b := wire.BasesOf(r)
	return wire.Paginated(r, viewsOf(ps.Files, func(f FixtureFile) wire.DiffEntry {
		return wire.NewDiffEntry(b, rs.ref(), ps.HeadSHA, fileFacts(f))
	}))
}

func listComments(r *http.Request, rs *repoState, ps *pullState) wire.Response {
	b := wire.BasesOf(r)
	return wire.Paginated(r, viewsOf(ps.comments, func(c Comment) wire.IssueComment {
		return wire.NewIssueComment(b, rs.ref(), commentFacts(ps.Number, c))
	}))
}

func (s *Server) createComment(r *http.Request) wire.Response {
	var in struct {
		Body *string `json:"body"`
	}
	if resp, ok := s.decodeWrite(r, wire.DocsCreateComment, &in); !ok {
		return resp
	}
	number, _ := pathNumber(r) // decodeWrite found the issue or pull request
	if invalid, bad := wire.CheckBody("IssueComment", in.Body, true); bad {
		return wire.ValidationFailed(wire.DocsCreateComment, invalid)
	}
	repo, c, err := s.addComment(r.PathValue("owner"), r.PathValue("repo"), number, s.BotLogin(), *in.Body)
	switch {
	case errors.Is(err, errNoPull):
		return wire.NotFound(wire.DocsCreateComment)
	case err != nil:
		return notStored(wire.DocsCreateComment, err)
	}
	view := wire.NewIssueComment(wire.BasesOf(r), repo.ref(), commentFacts(number, c))
	resp := wire.JSON(http.StatusCreated, view)
	resp.Header.Set("Location", view.URL)
	return resp
}

func (s *Server) getPermission(r *http.Request) wire.Response {
	login := r.PathValue("username")
	perm, ok := s.permission(r.PathValue("owner"), r.PathValue("repo"), login)
	if !ok {
		return wire.NotFound(wire.DocsPermission)
	}
	return wire.JSON(http.StatusOK, wire.NewCollaboratorPermission(wire.BasesOf(r), login, perm))
}
