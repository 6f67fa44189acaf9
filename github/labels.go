package github

import (
	"context"
	"strings"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// maxIssueLabels is GitHub's limit of labels on one issue: one page of them.
const maxIssueLabels = 100

// IssueLabels reads the labels an issue or pull request carries now: the
// state an add of labels is reconciled against. Its error is go-github's,
// unclassified.
func IssueLabels(ctx context.Context, gh *gogithub.Client, t api.Target) ([]string, error) {
	page, _, err := gh.Issues.ListLabelsByIssue(ctx, t.Owner, t.Repo, t.PullNumber, &gogithub.ListOptions{PerPage: maxIssueLabels})
	if err != nil {
		return nil, err
	}
	labels := make([]string, 0, len(page))
	for _, l := range page {
		labels = append(labels, l.GetName())
	}
	return labels, nil
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
