package ghsandbox

import (
	"net/http"
	"strconv"
	"time"
)

// This file serves one issue comment by its ID: the read and the edit
// (PATCH /repos/{owner}/{repo}/issues/comments/{id}), which is how a
// client marks its own earlier comment, say a review that a newer one
// superseded. An edit is kept in the state file with the comment.

// Comment-by-ID operations a fault can target.
const (
	OpGetComment  = "get_comment"
	OpEditComment = "edit_comment"
)

// Documentation links of the comment-by-ID endpoints.
const (
	DocsGetComment  = "https://docs.github.com/rest/issues/comments#get-an-issue-comment"
	DocsEditComment = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
)

// commentAt is the comment the path's {id} names in the path's
// repository, with the number of the issue or pull request it is on.
func (rs *repoState) commentAt(r *http.Request) (*Comment, int, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return nil, 0, false
	}
	for number, ps := range rs.pulls {
		for i := range ps.comments {
			if ps.comments[i].ID == id {
				return &ps.comments[i], number, true
			}
		}
	}
	return nil, 0, false
}

func (s *Server) getComment(r *http.Request) Response {
	if r.PathValue("comments") != "comments" {
		return NotFound(DocsREST)
	}
	return s.onRepo(DocsGetComment, func(r *http.Request, rs *repoState) Response {
		c, number, ok := rs.commentAt(r)
		if !ok {
			return NotFound(DocsGetComment)
		}
		return JSON(http.StatusOK, NewIssueComment(BasesOf(r), rs.ref(), commentFacts(number, *c)))
	})(r)
}

// editComment replaces a comment's body. A body equal to the one kept
// changes nothing (GitHub answers it the same), so Edits counts the edits
// that changed the comment. As on GitHub, a writer (the sandbox's client)
// may edit anyone's comment: whether it should is the client's rule.
func (s *Server) editComment(r *http.Request) Response {
	var in struct {
		Body *string `json:"body"`
	}
	if resp, ok := DecodeBody(r, DocsEditComment, &in); !ok {
		return resp
	}
	if invalid, bad := CheckBody("IssueComment", in.Body, true); bad {
		return ValidationFailed(DocsEditComment, invalid)
	}
	return s.onRepo(DocsEditComment, func(r *http.Request, rs *repoState) Response {
		c, number, ok := rs.commentAt(r)
		if !ok {
			return NotFound(DocsEditComment)
		}
		if c.Body != *in.Body {
			before := *c
			now := time.Now().UTC().Truncate(time.Second)
			c.Body, c.UpdatedAt, c.Edits = *in.Body, &now, c.Edits+1
			if err := s.saveLocked(); err != nil {
				*c = before
				return notStored(DocsEditComment, err)
			}
		}
		return JSON(http.StatusOK, NewIssueComment(BasesOf(r), rs.ref(), commentFacts(number, *c)))
	})(r)
}
