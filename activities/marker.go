package activities

import (
	"strings"
	"unicode"
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
