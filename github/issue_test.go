package github_test

import (
	"context"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/github"
)

func issue(number int, author, title, body string) *gogithub.Issue {
	return &gogithub.Issue{Number: gogithub.Int(number), User: &gogithub.User{Login: gogithub.String(author)},
		Title: gogithub.String(title), Body: gogithub.String(body)}
}

func TestFindOperationIssueNeedsTheBotTheTitleAndTheBody(t *testing.T) {
	marked := github.MarkedBody("Body", "run-1:2")
	pull := issue(5, "bot", "Title", marked)
	pull.PullRequestLinks = &gogithub.PullRequestLinks{URL: gogithub.String("https://api.github.test/pulls/5")}
	gh, _ := pagedServer(t, func(int) any {
		return []*gogithub.Issue{
			pull,
			issue(4, "mallory", "Title", marked),
			issue(3, "bot", "Another title", marked),
			issue(2, "bot", "Title", github.MarkedBody("Body edited", "run-1:2")),
			issue(1, "bot", " Title\n", marked),
		}
	}, func(int) bool { return false })
	found, ignored, err := github.FindOperationIssue(context.Background(), gh, "acme", "widgets", "run-1:2", "Title", "Body", "bot")
	require.NoError(t, err)
	require.Equal(t, 1, found.GetNumber())
	require.Len(t, ignored, 3, "the pull request is neither proof nor look-alike")
	for i, want := range []string{"written by mallory", "title is not the approved title", "body is not the approved body"} {
		require.Equal(t, int64(4-i), ignored[i].CommentID, "look-alikes are named by issue number")
		require.Contains(t, ignored[i].Why, want)
	}
}

func TestFindOperationIssueStopsAtItsPageBound(t *testing.T) {
	gh, requests := pagedServer(t, func(n int) any {
		return []*gogithub.Issue{issue(1000-n, "bot", "Other", "")}
	}, func(int) bool { return true })
	found, _, err := github.FindOperationIssue(context.Background(), gh, "acme", "widgets", "run-1:2", "Title", "Body", "bot")
	require.ErrorIs(t, err, github.ErrProofSearchIncomplete)
	require.Nil(t, found)
	require.Equal(t, int32(10), requests.Load())
}
