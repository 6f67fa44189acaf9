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

var issueSchema = mustSchema(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["title"],
  "properties": {
    "title": {"type": "string", "minLength": 1, "maxLength": 256},
    "body": {"type": "string", "maxLength": 65000},
    "labels": {
      "type": "array",
      "maxItems": 10,
      "uniqueItems": true,
      "items": {"type": "string", "minLength": 1, "maxLength": 50}
    }
  }
}`)

type issueArgs struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	// Labels is nil when the model gave none, and empty when it gave [].
	Labels []string `json:"labels"`
}

// createIssue files a follow-up issue in the run's repository. Reconcile
// strategy: marker lookup. The issue's body carries the operation's marker;
// only the bot's issue whose body is exactly the approved body with that
// marker, and whose title is the approved title, proves the operation
// (github.FindOperationIssue), and every attempt looks for it first.
type createIssue struct{ acc Access }

// NewCreateIssue is the create_issue action over acc.
func NewCreateIssue(acc Access) tools.Action { return createIssue{acc: acc} }

func (createIssue) Spec() api.ToolSpec {
	return api.ToolSpec{
		Name: api.ToolCreateIssue,
		Description: "File a follow-up issue in the pull request's repository: a title, a body " +
			"(Markdown) and optional labels. A person approves the exact issue first.",
		Parameters: issueSchema.raw,
		SideEffect: true,
	}
}

func (createIssue) parse(call tools.Call) (issueArgs, string, error) {
	var a issueArgs
	if err := issueSchema.decode(call.Args, &a); err != nil {
		return a, "", err
	}
	if strings.TrimSpace(a.Title) == "" {
		return a, "", fmt.Errorf("the issue title is blank")
	}
	if err := refuseMarker("issue title", a.Title); err != nil {
		return a, "", err
	}
	if err := refuseMarker("issue body", a.Body); err != nil {
		return a, "", err
	}
	ref, err := repoRef(call.Target)
	if err != nil {
		return a, "", err
	}
	return a, issuePreview(ref, a), nil
}

// issuePreview quotes the title and labels, one line each, and ends with the
// body as it will read: no title or body can pass for another field.
func issuePreview(ref string, a issueArgs) string {
	labels := "none"
	switch {
	case len(a.Labels) > 0:
		labels = quoteAll(a.Labels)
	case a.Labels != nil:
		labels = "none (an empty list)"
	}
	return fmt.Sprintf("New issue in %s\nTitle: %s\nLabels: %s\n\n%s", ref, quote(a.Title), labels, a.Body)
}

func repoRef(t api.Target) (string, error) {
	if t.Owner == "" || t.Repo == "" {
		return "", fmt.Errorf("the run names no repository (%q/%q)", t.Owner, t.Repo)
	}
	return t.Owner + "/" + t.Repo, nil
}

func (i createIssue) Preview(call tools.Call) (string, error) {
	_, preview, err := i.parse(call)
	return preview, err
}

func (createIssue) Touches(call tools.Call) (string, error) {
	ref, err := repoRef(call.Target)
	if err != nil {
		return "", err
	}
	return ref + " (new issue)", nil
}

func (i createIssue) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	op := fmt.Sprintf("create issue in %s/%s", call.Target.Owner, call.Target.Repo)
	a, err := approvedArgs(call, i.parse)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(op+": "+err.Error(), nil)
	}
	return executeMarked(ctx, i.acc, call, i.steps(op, call, a))
}

func (i createIssue) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	op := fmt.Sprintf("find issue for operation %s in %s/%s", call.OperationKey, call.Target.Owner, call.Target.Repo)
	a, err := approvedArgs(call, i.parse)
	if err != nil {
		return cannotTell(op+": "+err.Error(), nil), nil
	}
	return reconcileMarked(ctx, i.acc, call, i.steps(op, call, a))
}

func (createIssue) steps(op string, call tools.Call, a issueArgs) markerSteps {
	owner, repo := call.Target.Owner, call.Target.Repo
	return markerSteps{
		op: op,
		find: func(ctx context.Context, gh *gogithub.Client, login string) (api.ToolOutput, bool, error) {
			found, ignored, err := ghapi.FindOperationIssue(ctx, gh, owner, repo, call.OperationKey, a.Title, a.Body, login)
			if found == nil {
				return api.ToolOutput{Ignored: ignored}, false, err
			}
			out := issueOutput(found)
			out.Ignored = ignored
			return out, true, nil
		},
		create: func(ctx context.Context, gh *gogithub.Client) (api.ToolOutput, error) {
			req := &gogithub.IssueRequest{
				Title: gogithub.String(a.Title),
				Body:  gogithub.String(ghapi.MarkedBody(a.Body, call.OperationKey)),
			}
			if len(a.Labels) > 0 {
				req.Labels = &a.Labels
			}
			created, _, err := gh.Issues.Create(ctx, owner, repo, req)
			if err != nil {
				return api.ToolOutput{}, err
			}
			return issueOutput(created), nil
		},
	}
}

func issueOutput(is *gogithub.Issue) api.ToolOutput {
	return api.ToolOutput{
		Content:    content(map[string]any{"number": is.GetNumber(), "url": is.GetHTMLURL()}),
		ExternalID: strconv.Itoa(is.GetNumber()),
		URL:        is.GetHTMLURL(),
	}
}
