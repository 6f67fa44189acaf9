package workflows

import (
	"crypto/sha256"
	"encoding/hex"
)

// Rules shared by the workflow and the approval server. Each lives here once,
// so that the server's early answer and the workflow's final word agree.

// SameLogin compares two GitHub logins the way GitHub does: case-insensitive,
// ASCII only. Logins are ASCII; Unicode folding would let "ſam" stand for "sam".
func SameLogin(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if asciiLower(a[i]) != asciiLower(b[i]) {
			return false
		}
	}
	return true
}

func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// ResolveApplies reports whether an operator's resolve for stepID can apply
// to a run in the state snap shows: only the one step the run is waiting on,
// after it could not tell whether that step's action happened.
func ResolveApplies(snap RunSnapshot, stepID string) bool {
	return stepID != "" && snap.AwaitingResolve == stepID
}

// RequestKey is what an action remembers of a decision's requestId: bound to
// the channel it came through and the approver who sent it (lower-cased, as
// logins compare), so that nobody can burn another person's requestId, and
// hashed, so that the run query does not show requestIds to readers.
func RequestKey(channel, approver, requestID string) string {
	if requestID == "" {
		return ""
	}
	lower := []byte(approver)
	for i := range lower {
		lower[i] = asciiLower(lower[i])
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(channel), lower, []byte(requestID)} {
		h.Write(part)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}
