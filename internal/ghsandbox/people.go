package ghsandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-github/v62/github"
)

// ControlCommentsPath is where POST puts a comment on a pull request as any
// user, the way a person on GitHub would write one (see CommentAs).
const ControlCommentsPath = "/_sandbox/comments"

// CommentAs is the body of POST /_sandbox/comments: a comment by User.
type CommentAs struct {
	Owner  string `json:"owner"`
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	User   string `json:"user"`
	Body   string `json:"body"`
}

// BotLogin is the user the token authenticates as: GET /user answers it and
// every comment created through the API is written by it.
func (s *Server) BotLogin() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.botLogin
}

func (s *Server) getAuthenticatedUser(r *http.Request) Response {
	return JSON(http.StatusOK, NewAuthenticatedUser(BasesOf(r), s.BotLogin()))
}

// PostAs puts a comment on a pull request as c.User, as if that person had
// written it on GitHub. It is how tests play a pull request's author or a
// passer-by; the request log does not record it, since no client made it.
func (s *Server) PostAs(c CommentAs) (Comment, error) {
	if err := c.validate(); err != nil {
		return Comment{}, err
	}
	_, comment, err := s.addComment(c.Owner, c.Repo, c.Number, c.User, c.Body)
	if errors.Is(err, errNoPull) {
		return Comment{}, fmt.Errorf("no pull request %s/%s#%d in the sandbox", c.Owner, c.Repo, c.Number)
	}
	if err != nil {
		return Comment{}, fmt.Errorf("comment on %s/%s#%d as %s: %w", c.Owner, c.Repo, c.Number, c.User, err)
	}
	return comment, nil
}

func (c CommentAs) validate() error {
	var missing []string
	for _, f := range []struct {
		name  string
		empty bool
	}{
		{"owner", c.Owner == ""},
		{"repo", c.Repo == ""},
		{"number", c.Number <= 0},
		{"user", c.User == ""},
		{"body", strings.TrimSpace(c.Body) == ""},
	} {
		if f.empty {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("missing or empty: %s", strings.Join(missing, ", "))
	}
	if !validLogin(c.User) {
		return fmt.Errorf("user %q is not a GitHub login (letters, digits and single hyphens, optionally ending in [bot])", c.User)
	}
	return nil
}

// validLogin follows GitHub's login rules closely enough to catch a typo or a
// stray space: alphanumerics and inner single hyphens, at most 39 of them,
// and the "[bot]" suffix GitHub Apps post under.
func validLogin(login string) bool {
	name := strings.TrimSuffix(login, "[bot]")
	if name == "" || len(name) > 39 || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// postAsHandler answers 201 with the comment in GitHub's shape, or 400 with
// what is wrong with the request.
func (s *Server) postAsHandler(w http.ResponseWriter, r *http.Request) {
	var in CommentAs
	if err := ReadStrict(http.MaxBytesReader(w, r.Body, MaxRequestBody), &in); err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{
			"message": `bad comment: ` + err.Error() + ` (want {"owner","repo","number","user","body"})`,
		})
		return
	}
	c, err := s.PostAs(in)
	if errors.Is(err, errState) {
		writeControlJSON(w, http.StatusInternalServerError, map[string]string{"message": err.Error()})
		return
	}
	if err != nil {
		writeControlJSON(w, http.StatusBadRequest, map[string]string{"message": "bad comment: " + err.Error()})
		return
	}
	repo, _, _ := s.lookupPull(in.Owner, in.Repo, in.Number)
	writeControlJSON(w, http.StatusCreated, NewIssueComment(BasesOf(r), repo.ref(), commentFacts(in.Number, c)))
}

// commentTime is when a comment is stamped: GitHub shows whole seconds.
func commentTime() time.Time { return time.Now().UTC().Truncate(time.Second) }

// PostAsOverHTTP is PostAs for a sandbox in another process (the e2e suite's
// cmd/ghsandbox): it POSTs c to sandboxURL's ControlCommentsPath and returns
// the new comment's ID.
func PostAsOverHTTP(ctx context.Context, hc *http.Client, sandboxURL string, c CommentAs) (int64, error) {
	body, err := json.Marshal(c)
	if err != nil {
		return 0, fmt.Errorf("encode comment: %w", err)
	}
	url := strings.TrimSuffix(sandboxURL, "/") + ControlCommentsPath
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("post comment as %s: %w", c.User, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post comment as %s: %w", c.User, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxRequestBody))
	if err != nil {
		return 0, fmt.Errorf("post comment as %s: read answer: %w", c.User, err)
	}
	if resp.StatusCode != http.StatusCreated {
		return 0, fmt.Errorf("post comment as %s: %s: %s", c.User, resp.Status, bytes.TrimSpace(raw))
	}
	var created github.IssueComment
	if err := json.Unmarshal(raw, &created); err != nil {
		return 0, fmt.Errorf("post comment as %s: decode answer: %w", c.User, err)
	}
	return created.GetID(), nil
}
