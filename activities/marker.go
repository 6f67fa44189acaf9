package activities

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"unicode"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// markerWord is what every operation marker says inside its HTML comment.
const markerWord = "agent-operation:"

// CarriesOperationMarker reports whether body holds anything that looks like
// an operation marker: an HTML comment that mentions agent-operation:, in any
// case and with any whitespace. A body we post must carry only its own marker,
// appended by CreateIssueComment; one the model (or a prompt injection) wrote
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
	marker := api.OperationMarker(operationKey)
	return operationProof{marker: marker, author: author, digest: bodyDigest(markedBody(approvedBody, operationKey))}
}

// markedBody is the exact body CreateIssueComment posts for an operation.
func markedBody(body, operationKey string) string {
	return body + "\n\n" + api.OperationMarker(operationKey)
}

// bodyDigest hashes a body as GitHub may hand it back: line endings and the
// blank around the text are not ours to insist on, every other byte is.
func bodyDigest(body string) [sha256.Size]byte {
	return sha256.Sum256([]byte(strings.TrimSpace(strings.ReplaceAll(body, "\r\n", "\n"))))
}

// judge says whether c proves the operation; a candidate that does not is
// returned as an IgnoredComment, anything without the marker as neither.
func (p operationProof) judge(c *github.IssueComment) (proves bool, ignored *api.IgnoredComment) {
	body := c.GetBody()
	if !strings.Contains(body, p.marker) {
		return false, nil
	}
	author := c.GetUser().GetLogin()
	why := ""
	switch {
	case !api.SameLogin(author, p.author):
		why = fmt.Sprintf("carries the marker but was written by %s, not by this worker's GitHub identity %s", author, p.author)
	case bodyDigest(body) != p.digest:
		why = "carries the marker but its body is not the approved body (edited, or another text)"
	default:
		return true, nil
	}
	return false, &api.IgnoredComment{CommentID: c.GetID(), Author: author, Why: why}
}
