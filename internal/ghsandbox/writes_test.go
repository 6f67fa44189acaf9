package ghsandbox

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

// requireStatus asserts that err is GitHub's answer with status.
func requireStatus(t *testing.T, status int, err error) *github.ErrorResponse {
	t.Helper()
	var resp *github.ErrorResponse
	require.True(t, errors.As(err, &resp), "got %T: %v", err, err)
	require.Equal(t, status, resp.Response.StatusCode, resp.Message)
	return resp
}

func draft(path string, line int, side, body string) *github.DraftReviewComment {
	return &github.DraftReviewComment{Path: github.String(path), Line: github.Int(line), Side: github.String(side), Body: github.String(body)}
}

func TestReviewIsCreatedByTheTokensUserWithItsCommentsAndListed(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	ctx := context.Background()

	got, _, err := gh.PullRequests.CreateReview(ctx, "acme", "widgets", 1, &github.PullRequestReviewRequest{
		Body: github.String("Please drop the key."), Event: github.String("REQUEST_CHANGES"),
		Comments: []*github.DraftReviewComment{draft("config/aws.go", 9, "RIGHT", "secret"), draft("cache/cache.go", 3, "LEFT", "why drop sync?")},
	})

	require.NoError(t, err)
	require.Equal(t, "CHANGES_REQUESTED", got.GetState())
	require.Equal(t, sb.BotLogin(), got.GetUser().GetLogin())
	require.Equal(t, "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42", got.GetCommitID())
	stored := sb.Reviews("acme", "widgets", 1)
	require.Len(t, stored, 1)
	require.Len(t, stored[0].Comments, 2)
	require.Equal(t, "LEFT", stored[0].Comments[1].Side)
	listed, _, err := gh.PullRequests.ListReviews(ctx, "acme", "widgets", 1, nil)
	require.NoError(t, err)
	require.Len(t, listed, 1)
	require.Equal(t, got.GetID(), listed[0].GetID())
	require.Empty(t, sb.Reviews("acme", "widgets", 2))
}

func TestReviewEventsGiveGitHubsStates(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	for event, want := range map[string]string{"APPROVE": "APPROVED", "COMMENT": "COMMENTED", "": "PENDING"} {
		req := &github.PullRequestReviewRequest{Body: github.String("b")}
		if event != "" {
			req.Event = github.String(event)
		}
		got, _, err := gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 2, req)
		require.NoError(t, err, event)
		require.Equal(t, want, got.GetState())
		require.Equal(t, event == "", got.SubmittedAt == nil, "only a pending review lacks submitted_at")
	}
	require.Len(t, sb.Reviews("acme", "widgets", 2), 3)
}

// GitHub refuses the whole review when one comment is off the diff; the
// sandbox must too, or a test of "the review landed" proves nothing.
func TestReviewWithACommentOffTheDiffIs422AndCreatesNothing(t *testing.T) {
	cases := map[string]*github.PullRequestReviewRequest{
		"path not in the pull request": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("cache/cache.go", 3, "RIGHT", "ok"), draft("main.go", 1, "RIGHT", "x")}},
		"line outside every hunk": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("cache/cache.go", 200, "RIGHT", "x")}},
		"added line on the LEFT side": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("config/aws.go", 8, "LEFT", "x")}},
		"between two hunks": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("cache/cache.go", 24, "RIGHT", "x")}},
		"unknown side": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("cache/cache.go", 3, "MIDDLE", "x")}},
		"position past the patch": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{{Path: github.String("README.md"), Position: github.Int(6), Body: github.String("x")}}},
		"empty comment body": {Event: github.String("COMMENT"), Body: github.String("b"),
			Comments: []*github.DraftReviewComment{draft("README.md", 7, "RIGHT", " ")}},
		"unknown event":                  {Event: github.String("MERGE"), Body: github.String("b")},
		"changes requested without body": {Event: github.String("REQUEST_CHANGES")},
		"commit that is not the head":    {Event: github.String("APPROVE"), CommitID: github.String("4b1e07c9a35d28f6e0b9c14d7a62e3f85c0d9b17")},
	}
	for name, req := range cases {
		t.Run(name, func(t *testing.T) {
			sb, gh := sandboxAndClient(t)

			_, _, err := gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 1, req)

			resp := requireStatus(t, http.StatusUnprocessableEntity, err)
			require.NotEmpty(t, resp.Errors, "GitHub says what it refused")
			require.Empty(t, sb.Reviews("acme", "widgets", 1))
		})
	}
}

func TestReviewCommentsOnContextLinesAndPositionsAreAccepted(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	_, _, err := gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 1, &github.PullRequestReviewRequest{
		Event: github.String("COMMENT"), Body: github.String("b"),
		Comments: []*github.DraftReviewComment{
			draft("cache/cache.go", 1, "LEFT", "context, old side"), draft("cache/cache.go", 25, "RIGHT", "second hunk"),
		},
	})
	require.NoError(t, err)
	// go-github will not mix positions with lines in one review.
	_, _, err = gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 1, &github.PullRequestReviewRequest{
		Event: github.String("COMMENT"), Body: github.String("b"),
		Comments: []*github.DraftReviewComment{{Path: github.String("README.md"), Position: github.Int(5), Body: github.String("last line of the patch")}},
	})
	require.NoError(t, err)
	require.Len(t, sb.Reviews("acme", "widgets", 1), 2)
}

func TestSecondPendingReviewIsRefused(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	_, _, err := gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 1, &github.PullRequestReviewRequest{Body: github.String("draft")})
	require.NoError(t, err)

	_, _, err = gh.PullRequests.CreateReview(context.Background(), "acme", "widgets", 1, &github.PullRequestReviewRequest{Body: github.String("again")})

	requireStatus(t, http.StatusUnprocessableEntity, err)
	require.Len(t, sb.Reviews("acme", "widgets", 1), 1)
}

func TestWritesOnWhatDoesNotExistAre404(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	ctx := context.Background()
	_, _, err := gh.PullRequests.CreateReview(ctx, "acme", "widgets", 9, &github.PullRequestReviewRequest{Event: github.String("APPROVE")})
	requireStatus(t, http.StatusNotFound, err)
	_, _, err = gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 9, []string{"bug"})
	requireStatus(t, http.StatusNotFound, err)
	_, _, err = gh.Issues.Create(ctx, "acme", "gadgets", &github.IssueRequest{Title: github.String("t")})
	requireStatus(t, http.StatusNotFound, err)
	_, _, err = gh.PullRequests.ListReviews(ctx, "acme", "widgets", 0, nil)
	requireStatus(t, http.StatusNotFound, err)
	require.Empty(t, sb.Issues("acme", "widgets"))
}

func TestLabelsAreAddedOnceCreatedInTheRepoAndListed(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	ctx := context.Background()

	first, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 1, []string{"security", "needs review"})
	require.NoError(t, err)
	again, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 1, []string{"SECURITY", "cache"})
	require.NoError(t, err)

	require.Len(t, first, 2)
	require.Equal(t, []string{"security", "needs review", "cache"}, sb.Labels("acme", "widgets", 1), "GitHub matches names case-insensitively")
	require.Len(t, again, 3)
	require.Equal(t, "ededed", again[0].GetColor())
	listed, _, err := gh.Issues.ListLabelsByIssue(ctx, "acme", "widgets", 1, nil)
	require.NoError(t, err)
	require.Equal(t, again, listed)
	onOther, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 2, []string{"Cache"})
	require.NoError(t, err)
	require.Equal(t, again[2].GetID(), onOther[0].GetID(), "the label is the repository's, made once")
	require.Equal(t, "cache", onOther[0].GetName())
}

func TestBadLabelListsAre422AndChangeNothing(t *testing.T) {
	tooMany := make([]string, 101)
	for i := range tooMany {
		tooMany[i] = fmt.Sprintf("l%d", i)
	}
	cases := map[string]string{
		"empty list":       `{"labels":[]}`,
		"no labels key":    `{}`,
		"empty name":       `{"labels":["fresh",""]}`,
		"blank name":       `["fresh","  "]`,
		"name too long":    `["fresh","` + strings.Repeat("x", 51) + `"]`,
		"more than 100":    `["` + strings.Join(tooMany, `","`) + `"]`,
		"object sans name": `{"labels":[{"color":"ff0000"}]}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			sb, srv := startSandbox(t, DefaultFixture())

			a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/labels", body)

			require.Contains(t, []int{http.StatusUnprocessableEntity, http.StatusBadRequest}, a.status, string(a.body))
			require.Empty(t, sb.Labels("acme", "widgets", 1))
			// Had "fresh" been made in the repository, a later "FRESH" would take its spelling.
			require.Equal(t, http.StatusOK, call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/labels", `["FRESH"]`).status)
			require.Equal(t, []string{"FRESH"}, sb.Labels("acme", "widgets", 1))
		})
	}
}

func TestLabelsPastAHundredOnOneIssueAre422(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("l%d", i)
	}
	require.Equal(t, http.StatusOK, call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/labels", `["`+strings.Join(names, `","`)+`"]`).status)

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/labels", `["one too many"]`)

	require.Equal(t, http.StatusUnprocessableEntity, a.status)
	require.Len(t, sb.Labels("acme", "widgets", 1), 100)
}
