package ghtools

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
)

var reviewSchema = mustSchema(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["body", "event"],
  "properties": {
    "body": {"type": "string", "minLength": 1, "maxLength": 65000},
    "event": {"type": "string", "enum": ["COMMENT", "REQUEST_CHANGES"]},
    "comments": {
      "type": "array",
      "maxItems": 50,
      "items": {
        "type": "object",
        "additionalProperties": false,
        "required": ["path", "line", "body"],
        "properties": {
          "path": {"type": "string", "minLength": 1, "maxLength": 1000},
          "line": {"type": "integer", "minimum": 1},
          "side": {"type": "string", "enum": ["LEFT", "RIGHT"]},
          "body": {"type": "string", "minLength": 1, "maxLength": 65000}
        }
      }
    }
  }
}`)

type reviewArgs struct {
	Body     string          `json:"body"`
	Event    string          `json:"event"`
	Comments []reviewComment `json:"comments"`
}

type reviewComment struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	// Side is empty when the model left it to GitHub, which means RIGHT.
	Side string `json:"side"`
	Body string `json:"body"`
}

// createReview posts one pull request review, with inline comments on diff
// lines. Reconcile strategy: marker lookup. The review's body carries the
// operation's marker; only the bot's review whose body is exactly the
// approved body with that marker proves the operation
// (github.FindOperationReview), and every attempt looks for it first.
type createReview struct{}

// NewCreateReview is the create_pull_request_review action over acc.
func NewCreateReview(acc Access) tools.Action {
	return newAction[reviewArgs](acc, api.ToolCreatePullRequestReview,
		"Post one review on the pull request: a body, an event (COMMENT, or REQUEST_CHANGES "+
			"to ask for changes) and optional inline comments on lines of the diff (path, line, side: "+
			"RIGHT for the new code, LEFT for the old). It cannot approve the pull request.",
		reviewSchema, createReview{})
}

func (createReview) check(a reviewArgs) error {
	if err := RequireText("review body", a.Body); err != nil {
		return err
	}
	for i, c := range a.Comments {
		if err := refuseMarker(fmt.Sprintf("body of inline comment %d", i+1), c.Body); err != nil {
			return err
		}
	}
	return nil
}

func (createReview) pin(t api.Target) (string, error) { return pullRef(t) }

// preview shows the body as it will read, and everything else quoted,
// one inline comment a line, after a header that counts them: so no body can
// pass for inline comments, and no two reviews read the same.
func (createReview) preview(ref string, a reviewArgs) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Review (%s) on %s", a.Event, ref)
	if n := len(a.Comments); n > 0 {
		fmt.Fprintf(&b, ", with %d inline comment%s", n, map[bool]string{true: "", false: "s"}[n == 1])
	}
	b.WriteString(":\n")
	b.WriteString(a.Body)
	if len(a.Comments) == 0 {
		return b.String()
	}
	b.WriteString("\n\nInline comments:")
	for _, c := range a.Comments {
		side := c.Side
		if side == "" {
			side = "RIGHT, by default"
		}
		fmt.Fprintf(&b, "\n- %s:%d (%s): %s", quote(c.Path), c.Line, side, quote(c.Body))
	}
	return b.String()
}

func (createReview) touches(ref string) string { return ref }

func (createReview) words() api.ToolWords {
	return api.ToolWords{Noun: "review", Verb: "submit", Past: "submitted", Doing: "submitting"}
}

func (createReview) ops(call tools.Call) (execute, reconcile string) {
	return "create review on " + targetRef(call.Target),
		"find review for operation " + call.OperationKey + " on " + targetRef(call.Target)
}

func (createReview) effect(op string, call tools.Call, a reviewArgs) effect {
	t := call.Target
	return markerSteps[gogithub.PullRequestReview]{
		op:   op,
		call: call,
		find: func(ctx context.Context, gh *gogithub.Client, login string) (*gogithub.PullRequestReview, []api.IgnoredComment, error) {
			return ghapi.FindOperationReview(ctx, gh, t, call.OperationKey, a.Body, login)
		},
		create: func(ctx context.Context, gh *gogithub.Client) (*gogithub.PullRequestReview, error) {
			req := &gogithub.PullRequestReviewRequest{
				Body:  gogithub.String(ghapi.MarkedBody(a.Body, call.OperationKey)),
				Event: gogithub.String(a.Event),
			}
			for _, c := range a.Comments {
				dc := &gogithub.DraftReviewComment{Path: gogithub.String(c.Path), Line: gogithub.Int(c.Line), Body: gogithub.String(c.Body)}
				if c.Side != "" {
					dc.Side = gogithub.String(c.Side)
				}
				req.Comments = append(req.Comments, dc)
			}
			created, _, err := gh.PullRequests.CreateReview(ctx, t.Owner, t.Repo, t.PullNumber, req)
			return created, err
		},
		output: reviewOutput,
	}
}

func reviewOutput(r *gogithub.PullRequestReview) api.ToolOutput {
	return api.ToolOutput{
		Content:    content(map[string]any{"id": r.GetID(), "url": r.GetHTMLURL(), "state": r.GetState()}),
		ExternalID: strconv.FormatInt(r.GetID(), 10),
		URL:        r.GetHTMLURL(),
	}
}

// previewKind: the review's body is Markdown, shown as GitHub renders it.
func (createReview) previewKind() api.PreviewKind { return api.PreviewMarkdown }
