package github_test

import (
	"context"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/github"
)

func TestMissingLabelsComparesWithoutCase(t *testing.T) {
	have := []string{"Bug", "needs-tests", "área"}
	require.Empty(t, github.MissingLabels(have, []string{"bug", "NEEDS-TESTS", "ÁREA"}))
	require.Equal(t, []string{"bugs", "tests"}, github.MissingLabels(have, []string{"bug", "bugs", "tests"}))
	require.Equal(t, []string{"bug"}, github.MissingLabels(nil, []string{"bug"}))
}

func TestIssueLabelsReadsTheIssuesLabels(t *testing.T) {
	gh, _ := pagedServer(t, func(int) any {
		return []*gogithub.Label{{Name: gogithub.String("bug")}, {Name: gogithub.String("needs-tests")}}
	}, func(int) bool { return false })
	labels, err := github.IssueLabels(context.Background(), gh, demoPR)
	require.NoError(t, err)
	require.Equal(t, []string{"bug", "needs-tests"}, labels)
}
