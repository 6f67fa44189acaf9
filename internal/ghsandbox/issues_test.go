package ghsandbox

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

func TestIssueIsCreatedByTheTokensUserNumberedAfterThePullRequests(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	ctx := context.Background()

	got, resp, err := gh.Issues.Create(ctx, "acme", "widgets", &github.IssueRequest{
		Title: github.String("Leaked key"), Body: github.String("config/aws.go holds a key"), Labels: &[]string{"security", "bug"},
	})

	require.NoError(t, err)
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, got.GetURL(), resp.Header.Get("Location"))
	require.Equal(t, 3, got.GetNumber(), "issues and pull requests share numbers")
	require.Equal(t, sb.BotLogin(), got.GetUser().GetLogin())
	require.Equal(t, "open", got.GetState())
	require.False(t, got.IsPullRequest())
	require.Len(t, got.Labels, 2)
	require.Equal(t, []string{"security", "bug"}, sb.Labels("acme", "widgets", 3))
	issues := sb.Issues("acme", "widgets")
	require.Len(t, issues, 1)
	require.Equal(t, Issue{Number: 3, Title: "Leaked key", Body: "config/aws.go holds a key", User: sb.BotLogin(), State: "open", CreatedAt: issues[0].CreatedAt}, issues[0])

	next, _, err := gh.Issues.Create(ctx, "acme", "widgets", &github.IssueRequest{Title: github.String("Second")})
	require.NoError(t, err)
	require.Equal(t, 4, next.GetNumber())
}

func TestIssueWithoutAUsableTitleOrWithABadLabelIs422AndCreatesNothing(t *testing.T) {
	cases := map[string]string{
		"no title":        `{"body":"b"}`,
		"null title":      `{"title":null}`,
		"empty title":     `{"title":""}`,
		"blank title":     `{"title":"   "}`,
		"title too long":  `{"title":"` + strings.Repeat("t", 257) + `"}`,
		"title an object": `{"title":{"text":"t"}}`,
		"empty label":     `{"title":"t","labels":["bug",""]}`,
		"body too long":   `{"title":"t","body":"` + strings.Repeat("b", 65537) + `"}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			sb, srv := startSandbox(t, DefaultFixture())

			a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues", body)

			require.Equal(t, http.StatusUnprocessableEntity, a.status, string(a.body))
			require.Contains(t, string(a.body), `"Validation Failed"`)
			require.Empty(t, sb.Issues("acme", "widgets"))
			require.Empty(t, sb.Labels("acme", "widgets", 3))
		})
	}
}

// GitHub's schema check answers a null labels list before any other rule:
// labels may be left out, never null.
func TestIssueWithNullLabelsIs422AndCreatesNothing(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues", `{"title":"t","labels":null}`)

	require.Equal(t, http.StatusUnprocessableEntity, a.status, string(a.body))
	require.Contains(t, string(a.body), `"Invalid request.\n\nFor 'properties/labels', nil is not an array."`)
	require.Empty(t, sb.Issues("acme", "widgets"))

	left := call(t, "POST", srv.URL+"/repos/acme/widgets/issues", `{"title":"t"}`)
	require.Equal(t, http.StatusCreated, left.status, "labels left out are no labels")
	require.Len(t, sb.Issues("acme", "widgets"), 1)
}

func TestIssueBodyThatIsNotJSONIs400(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.Equal(t, http.StatusBadRequest, call(t, "POST", srv.URL+"/repos/acme/widgets/issues", `{"title":`).status)
	require.Empty(t, sb.Issues("acme", "widgets"))
}

func TestIssueListHasThePullRequestsAndFiltersAndSortsLikeGitHub(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	ctx := context.Background()
	_, _, err := gh.Issues.Create(ctx, "acme", "widgets", &github.IssueRequest{Title: github.String("By the bot")})
	require.NoError(t, err)

	all, _, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", nil)
	require.NoError(t, err)
	require.Equal(t, []int{3, 2, 1}, numbersOf(all), "newest first by default")
	require.True(t, all[1].IsPullRequest())
	require.True(t, all[2].IsPullRequest())
	require.False(t, all[0].IsPullRequest())

	mine, _, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", &github.IssueListByRepoOptions{Creator: sb.BotLogin()})
	require.NoError(t, err)
	require.Equal(t, []int{3}, numbersOf(mine))

	asc, resp, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", &github.IssueListByRepoOptions{
		Sort: "created", Direction: "asc", ListOptions: github.ListOptions{PerPage: 2},
	})
	require.NoError(t, err)
	require.Equal(t, []int{1, 2}, numbersOf(asc))
	require.Equal(t, 2, resp.NextPage)

	closed, _, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", &github.IssueListByRepoOptions{State: "closed"})
	require.NoError(t, err)
	require.Empty(t, closed)
	require.NotNil(t, closed, "an empty list is [], not null")
}

func TestIssueListFiltersByEveryLabelNamed(t *testing.T) {
	_, gh := sandboxAndClient(t)
	ctx := context.Background()
	_, _, err := gh.Issues.AddLabelsToIssue(ctx, "acme", "widgets", 1, []string{"bug", "cache"})
	require.NoError(t, err)
	_, _, err = gh.Issues.Create(ctx, "acme", "widgets", &github.IssueRequest{Title: github.String("t"), Labels: &[]string{"Bug"}})
	require.NoError(t, err)

	bugs, _, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", &github.IssueListByRepoOptions{Labels: []string{"bug"}})
	require.NoError(t, err)
	both, _, err := gh.Issues.ListByRepo(ctx, "acme", "widgets", &github.IssueListByRepoOptions{Labels: []string{"BUG", "cache"}})
	require.NoError(t, err)

	require.Equal(t, []int{3, 1}, numbersOf(bugs))
	require.Equal(t, []int{1}, numbersOf(both))
}

// Issues created at once still get one number each, none shared with a
// pull request.
func TestConcurrentIssuesGetDistinctNumbers(t *testing.T) {
	sb, gh := sandboxAndClient(t)
	const n = 20
	numbers := make(chan int, n)
	errs := make(chan error, n)
	for range n {
		go func() {
			is, _, err := gh.Issues.Create(context.Background(), "acme", "widgets", &github.IssueRequest{Title: github.String("race")})
			errs <- err
			numbers <- is.GetNumber()
		}()
	}
	seen := map[int]bool{}
	for range n {
		require.NoError(t, <-errs)
		number := <-numbers
		require.False(t, seen[number], "number %d handed out twice", number)
		require.Greater(t, number, 2)
		seen[number] = true
	}
	require.Len(t, sb.Issues("acme", "widgets"), n)
}

func TestIssueListRefusesUnknownFilterValues(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	for _, q := range []string{"state=merged", "sort=votes", "direction=up"} {
		a := call(t, "GET", srv.URL+"/repos/acme/widgets/issues?"+q, "")
		require.Equal(t, http.StatusUnprocessableEntity, a.status, q)
		require.Contains(t, string(a.body), strings.SplitN(q, "=", 2)[0], q)
	}
}

func numbersOf(issues []*github.Issue) []int {
	out := make([]int, 0, len(issues))
	for _, is := range issues {
		out = append(out, is.GetNumber())
	}
	return out
}
