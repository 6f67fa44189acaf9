package ghtools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
	gogithub "github.com/google/go-github/v62/github"
)

var labelsSchema = mustSchema(`{
  "type": "object",
  "additionalProperties": false,
  "required": ["labels"],
  "properties": {
    "labels": {
      "type": "array",
      "minItems": 1,
      "maxItems": 10,
      "uniqueItems": true,
      "items": {"type": "string", "minLength": 1, "maxLength": 50}
    }
  }
}`)

type labelsArgs struct {
	Labels []string `json:"labels"`
}

// addLabels adds labels to the pull request. Reconcile strategy: naturally
// idempotent state read. Adding a label twice changes nothing, so no marker
// is needed: the operation happened when the pull request carries every
// label (compared without regard to case, as GitHub does), and adding again
// is harmless when it does not.
type addLabels struct{}

// NewAddLabels is the add_labels action over acc. It is Scoped: an agent's
// Allow list names the labels it adds without asking.
func NewAddLabels(acc Access) tools.Scoped {
	return scopedLabels{newAction[labelsArgs](acc, api.ToolAddLabels,
		"Add labels the repository already has to the pull request (labels it already carries stay). "+
			"It never creates a label: a name the repository lacks refuses the whole call.",
		labelsSchema, addLabels{})}
}

func (addLabels) check(a labelsArgs) error {
	for i, l := range a.Labels {
		if strings.TrimSpace(l) == "" {
			return fmt.Errorf("label %d is blank", i+1)
		}
	}
	return nil
}

func (addLabels) pin(t api.Target) (string, error) { return pullRef(t) }

func (addLabels) preview(ref string, a labelsArgs) string {
	return "Add labels to " + ref + ": " + quoteAll(a.Labels)
}

func (addLabels) touches(ref string) string { return ref }

func (addLabels) words() api.ToolWords {
	return api.ToolWords{Noun: "label change", Verb: "make", Past: "made", Doing: "making"}
}

func (addLabels) ops(call tools.Call) (execute, reconcile string) {
	return "add labels to " + targetRef(call.Target),
		"read labels of " + targetRef(call.Target) + " for operation " + call.OperationKey
}

func (addLabels) effect(op string, call tools.Call, a labelsArgs) effect {
	return labelsEffect{op: op, call: call, labels: a.Labels}
}

// labelsEffect is adding labels, proven by reading them back.
type labelsEffect struct {
	op     string
	call   tools.Call
	labels []string
}

// execute reads the labels first, so that a repeated attempt says it found
// its effect rather than claim to have made it.
func (e labelsEffect) execute(ctx context.Context, acc Access) (api.ToolOutput, error) {
	gh, err := clientFor(acc, e.call, e.op)
	if err != nil {
		return api.ToolOutput{}, err
	}
	t := e.call.Target
	have, err := ghapi.IssueLabels(ctx, gh, t)
	url := pullURL(gh, t)
	if err != nil {
		return api.ToolOutput{}, unknownUnlessRateLimited(ghapi.ClassifyError(e.op+": read its labels", err))
	}
	if len(ghapi.MissingLabels(have, e.labels)) == 0 {
		out := labelsOutput(e.labels, have, url)
		out.AlreadyExisted = true
		return out, nil
	}
	// GitHub creates a label an issue names that the repository lacks, and
	// a new label can mean anything to the repository's bots; so only the
	// repository's own spelling of a label it has is ever sent.
	names, err := repoSpellings(ctx, gh, t, e.op, e.labels)
	if err != nil {
		return api.ToolOutput{}, err
	}
	added, _, err := gh.Issues.AddLabelsToIssue(ctx, t.Owner, t.Repo, t.PullNumber, names)
	if err != nil {
		return api.ToolOutput{}, writeFailed(e.op, err)
	}
	now := make([]string, 0, len(added))
	for _, label := range added {
		now = append(now, label.GetName())
	}
	return labelsOutput(e.labels, now, url), nil
}

// reconcile says found only when every label is on the pull request, and
// cannot_tell when it may not read them.
func (e labelsEffect) reconcile(ctx context.Context, acc Access) (api.ToolReconciliation, error) {
	gh, err := clientFor(acc, e.call, e.op)
	if err != nil {
		return cannotTellIfRefused(err, nil)
	}
	have, err := ghapi.IssueLabels(ctx, gh, e.call.Target)
	url := pullURL(gh, e.call.Target)
	if err != nil {
		return cannotTellIfRefused(ghapi.ClassifyError(e.op, err), nil)
	}
	if len(ghapi.MissingLabels(have, e.labels)) > 0 {
		return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
	}
	out := labelsOutput(e.labels, have, url)
	out.AlreadyExisted = true
	return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: out}, nil
}

// labelsOutput names the effect by the labels asked for, sorted, so that
// every attempt and reconciliation of one call names it alike; the model
// reads every label the pull request carries now.
func labelsOutput(asked, now []string, url string) api.ToolOutput {
	id := slices.Clone(asked)
	slices.Sort(id)
	return api.ToolOutput{
		Content:    content(map[string]any{"labels": now, "url": url}),
		ExternalID: strings.Join(id, ","),
		URL:        url,
	}
}

// pullURL is where people see the pull request's labels. The labels API
// does not say, so it is made the way GitHub makes it: its web host is the
// API's without the api. prefix (and, on GitHub Enterprise, without /api/v3).
func pullURL(gh *gogithub.Client, t api.Target) string {
	u := *gh.BaseURL
	u.Host = strings.TrimPrefix(u.Host, "api.")
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3")
	return fmt.Sprintf("%s/%s/%s/pull/%d", strings.TrimSuffix(u.String(), "/"), t.Owner, t.Repo, t.PullNumber)
}

// previewKind: the labels are read as the plain list they are.
func (addLabels) previewKind() api.PreviewKind { return api.PreviewText }
