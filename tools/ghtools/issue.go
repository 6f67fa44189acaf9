package ghtools

import (
	"context"
	"fmt"
	"strconv"

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
type createIssue struct{}

// NewCreateIssue is the create_issue action over acc.
func NewCreateIssue(acc Access) tools.Action {
	return newAction[issueArgs](acc, api.ToolCreateIssue,
		"File a follow-up issue in the pull request's repository: a title, a body "+
			"(Markdown) and optional labels.",
		issueSchema, createIssue{})
}

func (createIssue) check(a issueArgs) error {
	if err := RequireText("issue title", a.Title); err != nil {
		return err
	}
	return refuseMarker("issue body", a.Body)
}

func (createIssue) pin(t api.Target) (string, error) { return repoRef(t) }

// preview quotes the title and labels, one line each, and ends with the
// body as it will read: no title or body can pass for another field.
func (createIssue) preview(ref string, a issueArgs) string {
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

func (createIssue) touches(ref string) string { return ref + " (new issue)" }

func (createIssue) words() api.ToolWords {
	return api.ToolWords{Noun: "issue", Verb: "open", Past: "opened"}
}

func (createIssue) ops(call tools.Call) (execute, reconcile string) {
	t := call.Target
	return fmt.Sprintf("create issue in %s/%s", t.Owner, t.Repo),
		fmt.Sprintf("find issue for operation %s in %s/%s", call.OperationKey, t.Owner, t.Repo)
}

func (createIssue) effect(op string, call tools.Call, a issueArgs) effect {
	owner, repo := call.Target.Owner, call.Target.Repo
	return markerSteps[gogithub.Issue]{
		op:   op,
		call: call,
		find: func(ctx context.Context, gh *gogithub.Client, login string) (*gogithub.Issue, []api.IgnoredComment, error) {
			return ghapi.FindOperationIssue(ctx, gh, owner, repo, call.OperationKey, a.Title, a.Body, login)
		},
		create: func(ctx context.Context, gh *gogithub.Client) (*gogithub.Issue, error) {
			req := &gogithub.IssueRequest{
				Title: gogithub.String(a.Title),
				Body:  gogithub.String(ghapi.MarkedBody(a.Body, call.OperationKey)),
			}
			if len(a.Labels) > 0 {
				req.Labels = &a.Labels
			}
			created, _, err := gh.Issues.Create(ctx, owner, repo, req)
			return created, err
		},
		output: issueOutput,
	}
}

func issueOutput(is *gogithub.Issue) api.ToolOutput {
	return api.ToolOutput{
		Content:    content(map[string]any{"number": is.GetNumber(), "url": is.GetHTMLURL()}),
		ExternalID: strconv.Itoa(is.GetNumber()),
		URL:        is.GetHTMLURL(),
	}
}

// previewKind: the issue's body is Markdown, shown as GitHub renders it.
func (createIssue) previewKind() api.PreviewKind { return api.PreviewMarkdown }
