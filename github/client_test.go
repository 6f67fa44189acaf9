package github_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
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

// TestEveryGitHubClientBoundsOneExchange: a GitHub that accepts a
// connection and never answers must not hold a caller forever (the
// approval server's permission check has no activity timeout around it).
// Every client the process makes, in token and in app mode, bounds one
// exchange, within the attempt of a tool call it serves by default.
func TestEveryGitHubClientBoundsOneExchange(t *testing.T) {
	gh, err := github.NewClient("", "test-token")
	require.NoError(t, err)
	token, err := github.NewAccess(gh, nil, "agentrun-bot").ClientFor("read", widgets)
	require.NoError(t, err)
	app, _ := appAccess(t, 0, nil)
	installation, err := app.ClientFor("read", widgets)
	require.NoError(t, err)

	for name, c := range map[string]*gogithub.Client{"NewClient": gh, "token access": token, "app access": installation} {
		timeout := c.Client().Timeout
		require.Positive(t, timeout, name)
		require.LessOrEqual(t, timeout, api.DefaultToolTimeout, name)
	}
}
