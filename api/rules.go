package api

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"time"
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

// IsApprover reports whether who is one of approvers. Logins compare as
// GitHub compares them (SameLogin): "SAM" is "sam", but "ſam", which only
// Unicode folding makes "sam", is not.
func IsApprover(approvers []string, who string) bool {
	return slices.ContainsFunc(approvers, func(a string) bool { return sameApprover(a, who) })
}

// RefuseApprover is the approver rule with its refusal: why who may not
// decide on an action of a run that names approvers, or "" when who is one
// of them. On a run that names none it says "": write permission on the
// repository decides then (RefuseWriter).
func RefuseApprover(approvers []string, who string) string {
	if len(approvers) == 0 || IsApprover(approvers, who) {
		return ""
	}
	return fmt.Sprintf("%s is not an approver of this run", TruncateUTF8(who, MaxShownBytes))
}

// MayCancel is the rule for who may stop a run: its requester or one of its
// approvers; on a run that names no approvers, also a writer of its
// repository. why is the refusal, or ""; needsWriter says that only the
// sender's write permission lets the cancel apply (RefuseWriter).
func MayCancel(run Run, who string) (why string, needsWriter bool) {
	switch {
	case SameLogin(run.UserID, who), IsApprover(run.Approvers, who):
		return "", false
	case len(run.Approvers) > 0:
		return fmt.Sprintf("%s may not cancel this run: only its requester or an approver may", TruncateUTF8(who, MaxShownBytes)), false
	}
	return "", true
}

// RefuseWriter is CanApprove with its refusal: why login, who has
// permission on repo, may not do what needs write (doing: "approving",
// "cancelling", ...), or "".
func RefuseWriter(login, permission, repo, doing string) string {
	if CanApprove(permission) {
		return ""
	}
	return fmt.Sprintf("%s has %s permission on %s; %s needs write", TruncateUTF8(login, MaxShownBytes), permission, repo, doing)
}

// ActionOpen is the rule for whether a decision may still apply to pa at
// now: only while it waits, before its deadline. why is the refusal, or "".
// due says that pa still waits but its deadline has passed: the run expires
// it when it sees this, so that the race with its timer has one outcome. An
// action without a deadline (zero ExpiresAt) never falls due.
func ActionOpen(pa *PendingAction, now time.Time) (why string, due bool) {
	switch pa.State {
	case ActionWaiting:
		if !pa.ExpiresAt.IsZero() && !now.Before(pa.ExpiresAt) {
			return actionExpired(pa), true
		}
		return "", false
	case ActionApproved, ActionRejected:
		why = "the action was already " + string(pa.State)
		if pa.DecidedBy != "" {
			why += " by " + TruncateUTF8(pa.DecidedBy, MaxShownBytes)
		}
		if pa.DecidedAt != nil {
			why += " at " + pa.DecidedAt.UTC().Format(time.RFC3339)
		}
		return why, false
	case ActionExpired:
		return actionExpired(pa), false
	}
	return fmt.Sprintf("the action is %s", pa.State), false
}

// actionExpired says when pa expired: nobody decided it, so there is no "by".
func actionExpired(pa *PendingAction) string {
	if pa.ExpiresAt.IsZero() {
		return "the action expired without a decision"
	}
	return "the action expired at " + pa.ExpiresAt.UTC().Format(time.RFC3339) + " without a decision"
}

// MaxShownBytes bounds a name or field a refusal repeats, so that a hostile
// value cannot fill the run's events and history.
const MaxShownBytes = 200

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
		s = fmt.Sprintf("%s on %s for %s", cmp.Or(in.Agent, DefaultAgent), in.Target.Label(), in.UserID)
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

// ValidToolName is the rule for a tool's name (tools.Registry.Add, a hold
// on a tool): a lower case letter, then lower case letters, digits and '_',
// at most 64 bytes.
func ValidToolName(name string) bool { return lowerCaseName(name, 64, '_') }

// ValidAgentName is the rule for an agent's name, wherever it comes from (the
// registry, a start request, a listing's filter): lower case letters, digits
// and '-', starting with a letter, at most 63 bytes. Its alphabet cannot
// break out of the quotes of a visibility query.
func ValidAgentName(name string) bool { return lowerCaseName(name, 63, '-') }

// lowerCaseName is the shape every name agentrun puts into IDs, queries and
// JSON keys takes: a lower case ASCII letter, then lower case letters,
// digits and sep, at most limit bytes.
func lowerCaseName(name string, limit int, sep byte) bool {
	if name == "" || len(name) > limit || name[0] < 'a' || name[0] > 'z' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == sep) {
			return false
		}
	}
	return true
}
