package ghsandbox

import (
	"errors"
	"net/http"
	"strconv"
)

// pathNumber is the {number} of the path, or false when it is not a
// positive integer (GitHub answers those 404).
func pathNumber(r *http.Request) (int, bool) {
	number, err := strconv.Atoi(r.PathValue("number"))
	return number, err == nil && number > 0
}

// onPull answers with answer, under s.mu, for the pull request the path
// names, or with GitHub's 404 and the operation's documentation link.
func (s *Server) onPull(docs string, answer func(*http.Request, *repoState, *pullState) Response) func(*http.Request) Response {
	return func(r *http.Request) Response {
		number, ok := pathNumber(r)
		if !ok {
			return NotFound(docs)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		rs, ps, ok := s.pullLocked(r.PathValue("owner"), r.PathValue("repo"), number)
		if !ok {
			return NotFound(docs)
		}
		return answer(r, rs, ps)
	}
}

// onRepo is onPull for the repository the path names.
func (s *Server) onRepo(docs string, answer func(*http.Request, *repoState) Response) func(*http.Request) Response {
	return func(r *http.Request) Response {
		s.mu.Lock()
		defer s.mu.Unlock()
		rs, ok := s.repos[repoID(r.PathValue("owner"), r.PathValue("repo"))]
		if !ok {
			return NotFound(docs)
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
func (s *Server) decodeWrite(r *http.Request, docs string, in any) (Response, bool) {
	if !s.exists(r) {
		return NotFound(docs), false
	}
	return DecodeBody(r, docs, in)
}

// notStored is GitHub's answer when it could not store something; the
// message helps whoever reads the sandbox's side of a failed run.
func notStored(docs string, err error) Response {
	return Error(http.StatusInternalServerError, "Server Error: "+err.Error(), docs)
}

func getPullRequest(r *http.Request, rs *repoState, ps *pullState) Response {
	return JSON(http.StatusOK, NewPullRequest(BasesOf(r), rs.ref(), rs.pullFacts(ps), rs.openIssues()))
}

func listFiles(r *http.Request, rs *repoState, ps *pullState) Response {
	b := BasesOf(r)
	return Paginated(r, viewsOf(ps.Files, func(f FixtureFile) DiffEntry {
		return NewDiffEntry(b, rs.ref(), ps.HeadSHA, fileFacts(f))
	}))
}

func listComments(r *http.Request, rs *repoState, ps *pullState) Response {
	b := BasesOf(r)
	return Paginated(r, viewsOf(ps.comments, func(c Comment) IssueComment {
		return NewIssueComment(b, rs.ref(), commentFacts(ps.Number, c))
	}))
}

func (s *Server) createComment(r *http.Request) Response {
	var in struct {
		Body *string `json:"body"`
	}
	if resp, ok := s.decodeWrite(r, DocsCreateComment, &in); !ok {
		return resp
	}
	number, _ := pathNumber(r) // decodeWrite found the issue or pull request
	if invalid, bad := CheckBody("IssueComment", in.Body, true); bad {
		return ValidationFailed(DocsCreateComment, invalid)
	}
	repo, c, err := s.addComment(r.PathValue("owner"), r.PathValue("repo"), number, s.BotLogin(), *in.Body)
	switch {
	case errors.Is(err, errNoPull):
		return NotFound(DocsCreateComment)
	case err != nil:
		return notStored(DocsCreateComment, err)
	}
	view := NewIssueComment(BasesOf(r), repo.ref(), commentFacts(number, c))
	resp := JSON(http.StatusCreated, view)
	resp.Header.Set("Location", view.URL)
	return resp
}

func (s *Server) getPermission(r *http.Request) Response {
	login := r.PathValue("username")
	perm, ok := s.permission(r.PathValue("owner"), r.PathValue("repo"), login)
	if !ok {
		return NotFound(DocsPermission)
	}
	return JSON(http.StatusOK, NewCollaboratorPermission(BasesOf(r), login, perm))
}
