package ghsandbox

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentrun/agentrun/internal/ghsandbox/wire"
	"github.com/google/go-github/v62/github"
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

// onPull answers with answer for the pull request the path names, or with
// GitHub's 404 and the operation's documentation link.
func (s *Server) onPull(docs string, answer func(*http.Request, repoInfo, pullState) wire.Response) func(*http.Request) wire.Response {
	return func(r *http.Request) wire.Response {
		repo, pull, ok := s.pullFromPath(r)
		if !ok {
			return wire.NotFound(docs)
		}
		return answer(r, repo, pull)
	}
}

func getPullRequest(r *http.Request, repo repoInfo, pull pullState) wire.Response {
	return wire.JSON(http.StatusOK, pullView(r, repo, pull))
}

func listFiles(r *http.Request, repo repoInfo, pull pullState) wire.Response {
	return wire.Paginated(r, viewsOf(pull.Files, func(f FixtureFile) *github.CommitFile { return fileView(r, repo, pull, f) }))
}

func listComments(r *http.Request, repo repoInfo, pull pullState) wire.Response {
	return wire.Paginated(r, viewsOf(pull.comments, func(c Comment) *github.IssueComment { return commentView(r, repo, pull.Number, c) }))
}

// viewsOf renders every item; an empty list is [], never null, as on GitHub.
func viewsOf[T, V any](items []T, view func(T) V) []V {
	views := make([]V, 0, len(items))
	for _, it := range items {
		views = append(views, view(it))
	}
	return views
}

func (s *Server) createComment(r *http.Request) wire.Response {
	number, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || number <= 0 {
		return wire.NotFound(wire.DocsCreateComment)
	}
	if _, _, ok := s.lookupPull(r.PathValue("owner"), r.PathValue("repo"), number); !ok {
		return wire.NotFound(wire.DocsCreateComment)
	}
	var in struct {
		Body *string `json:"body"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxRequestBody)).Decode(&in); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return wire.Error(http.StatusRequestEntityTooLarge, "Payload Too Large", wire.DocsCreateComment)
		}
		return wire.Error(http.StatusBadRequest, "Problems parsing JSON", wire.DocsCreateComment)
	}
	if invalid, bad := validateCommentBody(in.Body); bad {
		return wire.ValidationFailed(wire.DocsCreateComment, invalid)
	}
	repo, c, err := s.addComment(r.PathValue("owner"), r.PathValue("repo"), number, s.BotLogin(), *in.Body)
	switch {
	case errors.Is(err, errNoPull):
		return wire.NotFound(wire.DocsCreateComment)
	case err != nil:
		// GitHub's answer when it could not store something; the message
		// helps whoever reads the sandbox's side of a failed run.
		return wire.Error(http.StatusInternalServerError, "Server Error: "+err.Error(), wire.DocsCreateComment)
	}
	view := commentView(r, repo, number, c)
	resp := wire.JSON(http.StatusCreated, view)
	resp.Header.Set("Location", view.GetURL())
	return resp
}

func validateCommentBody(body *string) (wire.ValidationError, bool) {
	switch {
	case body == nil || strings.TrimSpace(*body) == "":
		return wire.ValidationError{Resource: "IssueComment", Field: "body", Code: "missing_field"}, true
	case utf8.RuneCountInString(*body) > maxCommentRunes:
		return wire.ValidationError{
			Resource: "IssueComment", Field: "body", Code: "custom",
			Message: "body is too long (maximum is 65536 characters)",
		}, true
	}
	return wire.ValidationError{}, false
}

func (s *Server) getPermission(r *http.Request) wire.Response {
	login := r.PathValue("username")
	perm, ok := s.permission(r.PathValue("owner"), r.PathValue("repo"), login)
	if !ok {
		return wire.NotFound(wire.DocsPermission)
	}
	return wire.JSON(http.StatusOK, wire.Permission{
		RepositoryPermissionLevel: github.RepositoryPermissionLevel{Permission: github.String(perm), User: userView(r, login)},
		RoleName:                  perm,
	})
}
