package github

import (
	"context"
	"strings"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// IssueLabels reads the labels an issue or pull request carries now, and
// where people see it: the state an add of labels is reconciled against.
// Its error is go-github's, unclassified.
func IssueLabels(ctx context.Context, gh *gogithub.Client, t api.Target) (labels []string, htmlURL string, err error) {
	is, _, err := gh.Issues.Get(ctx, t.Owner, t.Repo, t.PullNumber)
	if err != nil {
		return nil, "", err
	}
	labels = make([]string, 0, len(is.Labels))
	for _, l := range is.Labels {
		labels = append(labels, l.GetName())
	}
	return labels, is.GetHTMLURL(), nil
}

// MissingLabels is the labels of want that have lacks, compared as GitHub
// compares label names: without regard to case.
func MissingLabels(have, want []string) []string {
	var missing []string
	for _, w := range want {
		present := false
		for _, h := range have {
			if strings.EqualFold(h, w) {
				present = true
				break
			}
		}
		if !present {
			missing = append(missing, w)
		}
	}
	return missing
}
