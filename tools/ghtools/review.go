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
type createReview struct{ acc Access }

// NewCreateReview is the create_pull_request_review action over acc.
func NewCreateReview(acc Access) tools.Action { return createReview{acc: acc} }

func (createReview) Spec() api.ToolSpec {
	return api.ToolSpec{
		Name: api.ToolCreatePullRequestReview,
		Description: "Post one review on the pull request: a body, an event (COMMENT, or REQUEST_CHANGES " +
			"to ask for changes) and optional inline comments on lines of the diff (path, line, side: " +
			"RIGHT for the new code, LEFT for the old). A person approves the exact review first; " +
			"it cannot approve the pull request.",
		Parameters: reviewSchema.raw,
		SideEffect: true,
	}
}

func (createReview) parse(call tools.Call) (reviewArgs, string, error) {
	var a reviewArgs
	if err := reviewSchema.decode(call.Args, &a); err != nil {
		return a, "", err
	}
	if strings.TrimSpace(a.Body) == "" {
		return a, "", fmt.Errorf("the review body is blank")
	}
	if err := refuseMarker("review body", a.Body); err != nil {
		return a, "", err
	}
	for i, c := range a.Comments {
		if err := refuseMarker(fmt.Sprintf("body of inline comment %d", i+1), c.Body); err != nil {
			return a, "", err
		}
	}
	ref, err := pullRef(call.Target)
	if err != nil {
		return a, "", err
	}
	return a, reviewPreview(ref, a), nil
}

// reviewPreview shows the body as it will read, and everything else quoted,
// one inline comment a line, after a header that counts them: so no body can
// pass for inline comments, and no two reviews read the same.
func reviewPreview(ref string, a reviewArgs) string {
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

func (r createReview) Preview(call tools.Call) (string, error) {
	_, preview, err := r.parse(call)
	return preview, err
}

func (createReview) Touches(call tools.Call) (string, error) { return pullRef(call.Target) }

func (r createReview) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	op := "create review on " + targetRef(call.Target)
	a, err := approvedArgs(call, r.parse)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(op+": "+err.Error(), nil)
	}
	return executeMarked(ctx, r.acc, call, r.steps(op, call, a))
}

func (r createReview) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	op := "find review for operation " + call.OperationKey + " on " + targetRef(call.Target)
	a, err := approvedArgs(call, r.parse)
	if err != nil {
		return cannotTell(op+": "+err.Error(), nil), nil
	}
	return reconcileMarked(ctx, r.acc, call, r.steps(op, call, a))
}

func (createReview) steps(op string, call tools.Call, a reviewArgs) markerSteps {
	t := call.Target
	return markerSteps{
		op: op,
		find: func(ctx context.Context, gh *gogithub.Client, login string) (api.ToolOutput, bool, error) {
			found, ignored, err := ghapi.FindOperationReview(ctx, gh, t, call.OperationKey, a.Body, login)
			if found == nil {
				return api.ToolOutput{Ignored: ignored}, false, err
			}
			out := reviewOutput(found)
			out.Ignored = ignored
			return out, true, nil
		},
		create: func(ctx context.Context, gh *gogithub.Client) (api.ToolOutput, error) {
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
			if err != nil {
				return api.ToolOutput{}, err
			}
			return reviewOutput(created), nil
		},
	}
}

func reviewOutput(r *gogithub.PullRequestReview) api.ToolOutput {
	return api.ToolOutput{
		Content:    content(map[string]any{"id": r.GetID(), "url": r.GetHTMLURL(), "state": r.GetState()}),
		ExternalID: strconv.FormatInt(r.GetID(), 10),
		URL:        r.GetHTMLURL(),
	}
}
