package github_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/github"
)

func TestNewClientDefaultsToGitHubDotCom(t *testing.T) {
	gh, err := github.NewClient("", "")

	require.NoError(t, err)
	require.Equal(t, "https://api.github.com/", gh.BaseURL.String())
}

func TestNewClientAddsTheTrailingSlash(t *testing.T) {
	gh, err := github.NewClient("http://127.0.0.1:9090/api/v3", "")

	require.NoError(t, err)
	require.Equal(t, "http://127.0.0.1:9090/api/v3/", gh.BaseURL.String())
	require.Equal(t, "http://127.0.0.1:9090/api/v3/", gh.UploadURL.String())
}

func TestNewClientRejectsAURLItCannotUse(t *testing.T) {
	for _, bad := range []string{"::not a url", "127.0.0.1:9090", "ftp://example.com/", "/relative/"} {
		_, err := github.NewClient(bad, "")
		require.ErrorContains(t, err, "GITHUB_API_URL", bad)
	}
}

func TestNewClientSendsTheToken(t *testing.T) {
	got := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number":1}`))
	}))
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "s3cret")
	require.NoError(t, err)

	_, _, err = gh.PullRequests.Get(t.Context(), "acme", "widgets", 1)

	require.NoError(t, err)
	require.Equal(t, "Bearer s3cret", <-got)
}
