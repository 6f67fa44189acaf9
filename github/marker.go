package github

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// markerWord is what every operation marker says inside its HTML comment.
const markerWord = "agent-operation:"

// CarriesOperationMarker reports whether body holds anything that looks like
// an operation marker: an HTML comment that mentions agent-operation:, in any
// case and with any whitespace. A body we post must carry only its own marker,
// appended by MarkedBody; one the model (or a prompt injection) wrote
// into the body could pass for another operation's proof. The test is broader
// than the marker itself on purpose: refusing a harmless look-alike costs one
// retry of the tool call, accepting a real one costs a forged proof.
func CarriesOperationMarker(body string) bool {
	rest := body
	for {
		open := strings.Index(rest, "<!--")
		if open < 0 {
			return false
		}
		rest = rest[open+len("<!--"):]
		inside := rest
		if end := strings.Index(inside, "-->"); end >= 0 {
			inside = inside[:end]
		}
		squeezed := strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, inside)
		if strings.Contains(squeezed, markerWord) {
			return true
		}
	}
}

// operationProof is what a comment must show to prove an operation: the key's
// marker, our own author, and exactly the approved body with that marker.
// Anyone can type a marker (keys are guessable), so the marker alone only
// makes a comment a candidate.
type operationProof struct {
	marker string
	author string
	digest [sha256.Size]byte
}

func newOperationProof(operationKey, approvedBody, author string) operationProof {
	return operationProof{marker: api.OperationMarker(operationKey), author: author, digest: bodyDigest(MarkedBody(approvedBody, operationKey))}
}

// MarkedBody is the exact body posted for an operation: the approved body,
// a blank line, and the key's marker.
func MarkedBody(body, operationKey string) string {
	return body + "\n\n" + api.OperationMarker(operationKey)
}

// bodyDigest hashes a body as GitHub may hand it back: line endings and the
// blank around the text are not ours to insist on, every other byte is.
func bodyDigest(body string) [sha256.Size]byte {
	return sha256.Sum256([]byte(strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))))
}

// judge says whether c proves the operation; a candidate that does not is
// returned as an IgnoredComment, anything without the marker as neither.
func (p operationProof) judge(c *gogithub.IssueComment) (proves bool, ignored *api.IgnoredComment) {
	return p.judgeWritten(c.GetID(), c.GetUser().GetLogin(), c.GetBody())
}

// judgeWritten is judge for anything GitHub keeps with an author and a body
// (a comment, a review, an issue), so that one rule decides for all of them;
// id names it in the look-alike report.
func (p operationProof) judgeWritten(id int64, author, body string) (proves bool, ignored *api.IgnoredComment) {
	if !strings.Contains(body, p.marker) {
		return false, nil
	}
	why := ""
	switch {
	case !api.SameLogin(author, p.author):
		why = fmt.Sprintf("carries the marker but was written by %s, not by this worker's GitHub identity %s", author, p.author)
	case bodyDigest(body) != p.digest:
		why = "carries the marker but its body is not the approved body (edited, or another text)"
	default:
		return true, nil
	}
	return false, &api.IgnoredComment{ID: strconv.FormatInt(id, 10), CommentID: id, Author: author, Why: why}
}

// PageSize is GitHub's largest page: the fewer requests a full listing
// takes, the fewer chances it has to hit a rate limit half way.
const PageSize = 100

// FindOperationComment reads the issue's comments page by page and returns
// the first that proves the operation (by author, with exactly the approved
// body and the key's marker), or nil once every page is read, with the
// look-alikes seen on the way (at most api.MaxIgnoredComments of them). Its
// error is go-github's, unclassified, naming the page that failed.
func FindOperationComment(ctx context.Context, gh *gogithub.Client, t api.Target, operationKey, approvedBody, author string) (*gogithub.IssueComment, []api.IgnoredComment, error) {
	proof := newOperationProof(operationKey, approvedBody, author)
	var ignored []api.IgnoredComment
	opts := &gogithub.IssueListCommentsOptions{ListOptions: gogithub.ListOptions{PerPage: PageSize}}
	for {
		page, resp, err := gh.Issues.ListComments(ctx, t.Owner, t.Repo, t.PullNumber, opts)
		if err != nil {
			return nil, ignored, fmt.Errorf("list comments (page %d): %w", max(opts.Page, 1), err)
		}
		for _, c := range page {
			proves, lookAlike := proof.judge(c)
			if proves {
				return c, ignored, nil
			}
			if lookAlike != nil && len(ignored) < api.MaxIgnoredComments {
				ignored = append(ignored, *lookAlike)
			}
		}
		if resp.NextPage == 0 {
			return nil, ignored, nil
		}
		opts.Page = resp.NextPage
	}
}
