// This file reads decisions written as GitHub comments: which line
// of a comment is a command (as GitHub would show it), and the command's
// verb, action ID and reason.

package approvalsrv

import (
	"errors"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// commandPrefix starts a command line in a GitHub comment.
const commandPrefix = "/agentrun"

// verbReview is /agentrun review: start a review of the pull request by
// hand (pullrequest.go), not a decision.
const verbReview = "review"

// errNoCommand: the comment holds no /agentrun line.
var errNoCommand = errors.New("no /agentrun command")

// commentCommand is a decision written as a GitHub comment:
//
//	/agentrun approve <actionId>
//	/agentrun reject <actionId> <reason>
//	/agentrun respond <actionId> <feedback>
//	/agentrun review
type commentCommand struct {
	Decision string
	ActionID string
	Reason   string
}

// parseCommentCommand finds the first command line of a comment body (see
// commandLines for which lines count) and parses it. It returns errNoCommand
// when there is none and a *invalidRequest when the line is malformed.
func parseCommentCommand(body string) (commentCommand, error) {
	line, ok := firstCommandLine(body)
	if !ok {
		return commentCommand{}, errNoCommand
	}
	verb, rest := cutWord(line)
	actionID, reason := cutWord(rest)
	switch strings.ToLower(verb) {
	case verbReview:
		if actionID != "" {
			return commentCommand{}, invalidf("review takes nothing after it: /agentrun review")
		}
		return commentCommand{Decision: verbReview}, nil
	case api.DecisionApprove:
		if actionID == "" {
			return commentCommand{}, invalidf("usage: /agentrun approve <actionId>")
		}
		if reason != "" {
			return commentCommand{}, invalidf("approve takes only an action ID")
		}
	case api.DecisionReject:
		if actionID == "" || reason == "" {
			return commentCommand{}, invalidf("usage: /agentrun reject <actionId> <reason>")
		}
	case api.DecisionRespond:
		// Feedback, not a decision; edited arguments have no comment form
		// (a comment's JSON is too easy to get wrong unseen).
		if actionID == "" || reason == "" {
			return commentCommand{}, invalidf("usage: /agentrun respond <actionId> <feedback>")
		}
	default:
		return commentCommand{}, invalidf("unknown command %q: want approve, reject, respond or review", clip(verb, maxEcho))
	}
	if err := checkActionID(actionID); err != nil {
		return commentCommand{}, err
	}
	if len(reason) > maxReasonLength || hasControl(reason) {
		return commentCommand{}, invalidf("the reason is too long or has control characters")
	}
	return commentCommand{Decision: strings.ToLower(verb), ActionID: actionID, Reason: reason}, nil
}

// firstCommandLine returns what follows the prefix on the first line that
// counts as a command. A line counts only when it starts with the prefix (after
// at most three spaces) and GitHub would show it as a line of its own: not in
// a fenced or indented code block, not in a block quote (nor a line that
// continues one), not inside an HTML comment. Text inside <!-- --> on the
// command line itself is dropped, as GitHub does not show it. Where the
// markdown is ambiguous the rule errs towards no command: a person can always
// comment again, but an example must never act.
func firstCommandLine(body string) (string, bool) {
	var sc markdownScan
	for _, raw := range strings.Split(body, "\n") {
		if visible, ok := sc.commandCandidate(strings.TrimSuffix(raw, "\r")); ok {
			rest := visible[len(commandPrefix):]
			if rest == "" || rest[0] == ' ' || rest[0] == '\t' {
				return strings.TrimSpace(rest), true
			}
		}
	}
	return "", false
}

// markdownScan follows, line by line, the markdown state that hides a line.
type markdownScan struct {
	fence     string // the opening fence while inside a fenced block
	inComment bool
	inQuote   bool // the last non-blank line was (or continued) a block quote
}

// commandCandidate updates the state with one line and returns its visible
// text when the line starts with commandPrefix and nothing hides it.
func (sc *markdownScan) commandCandidate(line string) (string, bool) {
	if sc.fence != "" {
		if closesFence(line, sc.fence) {
			sc.fence = ""
		}
		return "", false
	}
	if sc.inComment {
		// The line starts inside a comment: it is not a line of its own.
		end := strings.Index(line, "-->")
		if end >= 0 {
			sc.inComment = false
			stripHTMLComments(line[end+len("-->"):], &sc.inComment)
		}
		return "", false
	}
	indent, content := splitIndent(line)
	if strings.TrimSpace(content) == "" {
		sc.inQuote = false
		return "", false
	}
	if indent < 4 {
		if fence, ok := opensFence(content); ok {
			sc.fence, sc.inQuote = fence, false
			return "", false
		}
	}
	visible := stripHTMLComments(content, &sc.inComment)
	switch {
	case indent >= 4: // indented code, or a continuation of what came before
		return "", false
	case strings.HasPrefix(content, ">"):
		sc.inQuote = true
		return "", false
	case sc.inQuote: // a lazy continuation line of the quote
		return "", false
	}
	// A comment cannot start inside the prefix, so visible starts with it too.
	return visible, strings.HasPrefix(content, commandPrefix)
}

// splitIndent measures leading whitespace in columns. In CommonMark a tab
// reaches the next multiple of four, so any tab makes the indent at least
// four, which is all the rules here ask.
func splitIndent(line string) (int, string) {
	cols := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			cols++
		case '\t':
			cols += 4
		default:
			return cols, line[i:]
		}
	}
	return cols, ""
}

// opensFence reports a code fence: three or more backticks (whose info string
// has none) or tildes.
func opensFence(content string) (string, bool) {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(content) && content[n] == c {
			n++
		}
		if n < 3 {
			continue
		}
		if c == '`' && strings.Contains(content[n:], "`") {
			return "", false // inline code such as ```x```
		}
		return content[:n], true
	}
	return "", false
}

// closesFence: the same character, at least as many, nothing else after.
func closesFence(line, fence string) bool {
	indent, content := splitIndent(line)
	if indent >= 4 {
		return false
	}
	n := 0
	for n < len(content) && content[n] == fence[0] {
		n++
	}
	return n >= len(fence) && strings.TrimSpace(content[n:]) == ""
}

// stripHTMLComments returns s without its <!-- --> parts; inComment carries a
// comment that is still open at the end of s on to the next line.
func stripHTMLComments(s string, inComment *bool) string {
	var out strings.Builder
	for {
		if *inComment {
			end := strings.Index(s, "-->")
			if end < 0 {
				return out.String()
			}
			s, *inComment = s[end+len("-->"):], false
		}
		start := strings.Index(s, "<!--")
		if start < 0 {
			out.WriteString(s)
			return out.String()
		}
		out.WriteString(s[:start])
		s, *inComment = s[start+len("<!--"):], true
	}
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
