package github_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// countingGitHub answers GET /user as login and counts every request.
func countingGitHub(t *testing.T, login string) (*github.Access, *atomic.Int64, func(github.RepoAllowlist, string) *github.Access) {
	t.Helper()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"login":"` + login + `"}`))
	}))
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	access := func(allowed github.RepoAllowlist, botLogin string) *github.Access {
		return github.NewAccess(gh, allowed, botLogin)
	}
	return access(nil, ""), &requests, access
}

func TestAccessRefusesARepositoryOutsideItsAllowlistBeforeAnyRequest(t *testing.T) {
	_, requests, access := countingGitHub(t, "agentrun[bot]")
	acc := access(github.RepoAllowlist{"acme/widgets"}, "")

	_, err := acc.ClientFor("read", api.Target{Owner: "acme", Repo: "gadgets", PullNumber: 1})

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeTargetNotAllowed, appErr.Type())
	require.True(t, appErr.NonRetryable())
	_, err = acc.ClientFor("read", api.Target{Owner: "ACME", Repo: "Widgets", PullNumber: 1})
	require.NoError(t, err)
	require.Zero(t, requests.Load())
}

func TestAccessGivesEachCallAClientOfItsOwn(t *testing.T) {
	acc, _, _ := countingGitHub(t, "agentrun[bot]")
	pr := api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

	first, err := acc.ClientFor("read", pr)
	require.NoError(t, err)
	second, err := acc.ClientFor("read", pr)
	require.NoError(t, err)

	require.NotSame(t, first, second, "go-github's remembered rate limit must not outlive a call")
	require.Equal(t, first.BaseURL.String(), second.BaseURL.String())
}

func TestAccessLearnsItsLoginOnceUnlessGivenOne(t *testing.T) {
	acc, requests, access := countingGitHub(t, "agentrun[bot]")

	require.NoError(t, acc.Identify(context.Background()))
	require.Equal(t, "agentrun[bot]", acc.Login())
	require.Equal(t, int64(1), requests.Load())

	given := access(nil, "reviewer-app[bot]")
	require.NoError(t, given.Identify(context.Background()))
	require.Equal(t, "reviewer-app[bot]", given.Login())
	require.Equal(t, int64(1), requests.Load(), "a given login needs no GET /user")
}

func TestNoAccessFailsEveryRequestWithoutNetwork(t *testing.T) {
	var none *github.Access

	_, errClient := none.ClientFor("read", api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1})
	_, errPermission := none.Permission(context.Background(), "acme", "widgets", "bob")
	errIdentify := none.Identify(context.Background())

	for _, err := range []error{errClient, errPermission, errIdentify} {
		require.ErrorContains(t, err, "no GitHub client configured")
	}
	require.Empty(t, none.Login())
}
