package offline

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/agentrun/agentrun/api"
)

// The inline review: the same reading and summary as the comment, posted as
// one pull request review whose inline comments sit on the added lines the
// line rules flag.

// maxInlineComments keeps a review's inline comments few enough to be read;
// the summary lists every finding anyway.
const maxInlineComments = 5

// longLineRunes is where an added line counts as very long: past it, a
// side-by-side diff wraps and a reader loses the code's shape.
const longLineRunes = 200

// reviewEvent is the review's event: the offline reviewer's findings are
// heuristics, so it comments and never blocks a merge by itself.
const reviewEvent = "COMMENT"

// inlineComment is one comment of create_pull_request_review, on a line of
// the new file (side RIGHT).
type inlineComment struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Side string `json:"side"`
	Body string `json:"body"`
}

// reviewArgs are create_pull_request_review's arguments.
type reviewArgs struct {
	Body     string          `json:"body"`
	Event    string          `json:"event"`
	Comments []inlineComment `json:"comments,omitempty"`
}

// proposeReview asks for the one review: body is the comment body the
// comment variant would post.
func proposeReview(body string, files []api.PullRequestFile, brief bool, turn int) (api.ModelDecision, error) {
	calls := newTurnCalls(turn)
	var comments []inlineComment
	if !brief {
		comments = inlineComments(files)
	}
	if err := calls.add(api.ToolCreatePullRequestReview, reviewArgs{Body: body, Event: reviewEvent, Comments: comments}); err != nil {
		return api.ModelDecision{}, err
	}
	return api.ModelDecision{ToolCalls: calls.calls}, nil
}

// inlineComments are the first maxInlineComments added lines, in file order
// then line order, that a line rule flags or that are very long; one comment
// per line says everything found on it. Only lines the patch adds are used,
// numbered from its hunk headers, so every comment lands on a line of the
// diff; a hostile patch whose hunks repeat or start at line 0 gets no comment
// on those lines.
func inlineComments(files []api.PullRequestFile) []inlineComment {
	var out []inlineComment
	for _, f := range files {
		if f.Filename == "" {
			continue
		}
		added := addedLines(f.Patch)
		remarks := map[int][]string{}
		for _, finding := range lineFindings(f.Filename, added) {
			remarks[finding.Line] = append(remarks[finding.Line], sentenceCase(finding.remark()))
		}
		done := map[int]bool{}
		for _, l := range added {
			if l.Number < 1 || done[l.Number] {
				continue
			}
			done[l.Number] = true
			said := remarks[l.Number]
			if n := utf8.RuneCountInString(l.Text); n > longLineRunes {
				said = append(said, fmt.Sprintf("Very long line (%d characters); consider wrapping it.", n))
			}
			if len(said) == 0 {
				continue
			}
			out = append(out, inlineComment{Path: f.Filename, Line: l.Number, Side: "RIGHT", Body: strings.Join(said, "\n\n")})
			if len(out) == maxInlineComments {
				return out
			}
		}
	}
	return out
}

// sentenceCase capitalises a remark's first letter, which is ASCII.
func sentenceCase(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// reviewOutcome is the final answer once the review tool has answered.
func (c conversation) reviewOutcome(ctx context.Context, result string) (api.ModelDecision, error) {
	label, review, err := c.reviewed(ctx)
	if err != nil {
		return api.ModelDecision{}, err
	}
	if review != nil {
		n := 0
		if rev, _ := c.feedback(); !rev.shorter {
			n = len(inlineComments(rev.files(c.files())))
		}
		label += fmt.Sprintf(" (%s, %d inline %s%s)", countFindings(len(review.Findings)), n, plural(n, "comment", "comments"), review.leftOutCount())
	}
	posted, ok := decodeAction(result)
	return withEditor(postedAnswer(label, result, ok, posting{existed: posted.AlreadyExisted, as: asID("review", posted.ID), url: posted.URL}), result), nil
}

// asID names what an action made, when its result said.
func asID(kind, id string) string {
	if id == "" {
		return ""
	}
	return " as " + kind + " " + id
}
