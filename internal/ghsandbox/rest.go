package ghsandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxCommentRunes is GitHub's limit on a comment body.
const maxCommentRunes = 65536

// maxRequestBody bounds what the sandbox reads from a client.
const maxRequestBody = 1 << 20

// pullFromPath finds the pull request a /repos/{owner}/{repo}/.../{number} path names.
func (s *Server) pullFromPath(r *http.Request) (repoInfo, pullState, bool) {
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || number <= 0 {
		return repoInfo{}, pullState{}, false
	}
	return s.lookupPull(r.PathValue("owner"), r.PathValue("repo"), number)
}

func (s *Server) getPullRequest(r *http.Request) apiResponse {
	repo, pull, ok := s.pullFromPath(r)
	if !ok {
		return notFound(docsGetPull)
	}
	return jsonResponse(http.StatusOK, pullView(r, repo, pull))
}

func (s *Server) listFiles(r *http.Request) apiResponse {
	repo, pull, ok := s.pullFromPath(r)
	if !ok {
		return notFound(docsListFiles)
	}
	files := make([]fileJSON, 0, len(pull.Files))
	for _, f := range pull.Files {
		files = append(files, fileView(r, repo, pull, f))
	}
	return paginated(r, files)
}

func (s *Server) listComments(r *http.Request) apiResponse {
	repo, pull, ok := s.pullFromPath(r)
	if !ok {
		return notFound(docsListComments)
	}
	comments := make([]commentJSON, 0, len(pull.comments))
	for _, c := range pull.comments {
		comments = append(comments, commentView(r, repo, pull.Number, c))
	}
	return paginated(r, comments)
}

func (s *Server) createComment(r *http.Request) apiResponse {
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || number <= 0 {
		return notFound(docsCreateComment)
	}
	if _, _, ok := s.lookupPull(r.PathValue("owner"), r.PathValue("repo"), number); !ok {
		return notFound(docsCreateComment)
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxRequestBody)).Decode(&in); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return errorResponse(http.StatusRequestEntityTooLarge, "Payload Too Large", docsCreateComment)
		}
		return errorResponse(http.StatusBadRequest, "Problems parsing JSON", docsCreateComment)
	}
	if invalid, bad := validateCommentBody(in.Body); bad {
		return validationFailed(docsCreateComment, invalid)
	}
	repo, c, err := s.addComment(r.PathValue("owner"), r.PathValue("repo"), number, s.BotLogin(), *in.Body)
	switch {
	case errors.Is(err, errNoPull):
		return notFound(docsCreateComment)
	case err != nil:
		// GitHub's answer when it could not store something; the message
		// helps whoever reads the sandbox's side of a failed run.
		return errorResponse(http.StatusInternalServerError, "Server Error: "+err.Error(), docsCreateComment)
	}
	view := commentView(r, repo, number, c)
	resp := jsonResponse(http.StatusCreated, view)
	resp.header.Set("Location", view.URL)
	return resp
}

func validateCommentBody(body *string) (validationError, bool) {
	switch {
	case body == nil || strings.TrimSpace(*body) == "":
		return validationError{Resource: "IssueComment", Field: "body", Code: "missing_field"}, true
	case utf8.RuneCountInString(*body) > maxCommentRunes:
		return validationError{
			Resource: "IssueComment", Field: "body", Code: "custom",
			Message: "body is too long (maximum is 65536 characters)",
		}, true
	}
	return validationError{}, false
}

func (s *Server) getPermission(r *http.Request) apiResponse {
	login := r.PathValue("username")
	perm, ok := s.permission(r.PathValue("owner"), r.PathValue("repo"), login)
	if !ok {
		return notFound(docsPermission)
	}
	return jsonResponse(http.StatusOK, permissionJSON{
		Permission: perm,
		RoleName:   perm,
		User:       userView(r, login),
	})
}
