package approvalsrv

import (
	"errors"
	"strings"

	"github.com/agentrun/agentrun/workflows"
)

// CommandPrefix starts a command line in a GitHub comment.
const CommandPrefix = "/agentrun"

// ErrNoCommand: the comment holds no /agentrun line.
var ErrNoCommand = errors.New("no /agentrun command")

const maxActionIDLength = 200

// CommentCommand is a decision written as a GitHub comment:
//
//	/agentrun approve <actionId>
//	/agentrun reject <actionId> <reason>
type CommentCommand struct {
	Decision string
	ActionID string
	Reason   string
}

// ParseCommentCommand finds the first /agentrun line of a comment body, outside
// code blocks and quotes, and parses it. It returns ErrNoCommand when there is
// none and a *BadRequestError when the line is malformed.
func ParseCommentCommand(body string) (CommentCommand, error) {
	line, ok := firstCommandLine(body)
	if !ok {
		return CommentCommand{}, ErrNoCommand
	}
	verb, rest := cutWord(line)
	actionID, reason := cutWord(rest)
	switch strings.ToLower(verb) {
	case workflows.DecisionApprove:
		if actionID == "" {
			return CommentCommand{}, badRequest("usage: /agentrun approve <actionId>")
		}
		if reason != "" {
			return CommentCommand{}, badRequest("approve takes only an action ID")
		}
	case workflows.DecisionReject:
		if actionID == "" || reason == "" {
			return CommentCommand{}, badRequest("usage: /agentrun reject <actionId> <reason>")
		}
	default:
		return CommentCommand{}, badRequest("unknown command %q: want approve or reject", clip(verb))
	}
	if len(actionID) > maxActionIDLength || hasControl(actionID) {
		return CommentCommand{}, badRequest("the action ID is too long or has control characters")
	}
	if len(reason) > maxReasonLength || hasControl(reason) {
		return CommentCommand{}, badRequest("the reason is too long or has control characters")
	}
	return CommentCommand{Decision: strings.ToLower(verb), ActionID: actionID, Reason: reason}, nil
}

// firstCommandLine skips fenced code blocks so that a comment quoting usage
// examples does not act on them; quoted lines start with ">" and never match.
func firstCommandLine(body string) (string, bool) {
	inFence := false
	for _, raw := range strings.Split(body, "\n") {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		rest, ok := strings.CutPrefix(line, CommandPrefix)
		if !ok {
			continue
		}
		if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
			return strings.TrimSpace(rest), true
		}
	}
	return "", false
}

// cutWord splits off the first space-separated word; rest is trimmed.
func cutWord(s string) (word, rest string) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i:])
}
