package api

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Rules shared by the workflow, the activities and the approval server. Each
// lives here once, so that the server's early answer and the workflow's final
// word agree.

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

// CanApprove is the approval policy's rule for a run that names no
// approvers: approving a comment needs write access to the repository.
// The workflow applies it to the CheckRepoPermission activity's answer; the
// approval server applies it to its own early check, so both agree.
func CanApprove(permission string) bool {
	switch permission {
	case "admin", "maintain", "write":
		return true
	}
	return false
}

// OperationMarker is the hidden marker appended to every comment a run
// creates. It is on GitHub, not in Temporal, but it is a wire name all the
// same: reconciliation finds old runs' comments by it, and the approval
// server's webhook ignores comments that carry it.
func OperationMarker(operationKey string) string {
	return "<!-- agent-operation:" + operationKey + " -->"
}

// StaticSummary is the Temporal UI's one-line summary of a run, for the
// starter to pass as client.StartWorkflowOptions.StaticSummary, e.g.
// "Review acme/widgets#1 for alice".
func StaticSummary(in RunInput) string {
	s := fmt.Sprintf("Review %s#%d for %s", in.Repo, in.PullNumber, in.UserID)
	if in.Target != nil {
		s = fmt.Sprintf("%s on %s for %s", cmp.Or(in.Agent, DefaultAgent), in.Target.Ref(), in.UserID)
	}
	if in.Goal != "" {
		s += ": " + TruncateUTF8(in.Goal, 80)
	}
	return s
}

// TruncateUTF8 cuts s to at most n bytes without splitting a character.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// ValidAgentName is the rule for an agent's name, wherever it comes from (the
// registry, a start request, a listing's filter): lower case letters, digits
// and '-', starting with a letter, at most 63 bytes. Its alphabet cannot
// break out of the quotes of a visibility query.
func ValidAgentName(name string) bool {
	if name == "" || len(name) > 63 || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
