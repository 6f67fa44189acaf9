package github_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// appAccess is an access in app mode over a sandbox that speaks for the app.
func appAccess(t *testing.T, lifetime time.Duration, edit func(*github.Credentials)) (*github.Access, *ghsandbox.Server) {
	t.Helper()
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	url, _ := testkit.ServeSandbox(t, sb)
	creds := testkit.SandboxApp(t, sb, url, lifetime)
	if edit != nil {
		edit(&creds)
	}
	acc, err := github.NewAppAccess(creds, nil, "")
	require.NoError(t, err)
	return acc, sb
}

func readPull(t *testing.T, acc *github.Access, target api.Target) error {
	t.Helper()
	gh, err := acc.ClientFor("read", target)
	require.NoError(t, err)
	_, _, err = gh.PullRequests.Get(context.Background(), target.Owner, target.Repo, target.PullNumber)
	return err
}

func opsOf(sb *ghsandbox.Server, op string) (calls, refused int) {
	for _, r := range sb.Requests() {
		if r.Op == op {
			calls++
		}
		if r.Status == http.StatusUnauthorized {
			refused++
		}
	}
	return calls, refused
}

var widgets = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

func TestAppModeIdentifiesAsTheAppsBotAndReadsWithAnInstallationToken(t *testing.T) {
	acc, sb := appAccess(t, 0, nil)
	require.NoError(t, acc.Identify(context.Background()))
	require.Equal(t, testkit.SandboxAppSlug+"[bot]", acc.Login())
	require.True(t, acc.AppMode())

	require.NoError(t, readPull(t, acc, widgets))
	require.NoError(t, readPull(t, acc, widgets))
	lookups, _ := opsOf(sb, ghsandbox.OpGetRepoInstallation)
	minted, _ := opsOf(sb, ghsandbox.OpCreateInstallationToken)
	require.Equal(t, 1, lookups, "the installation is looked up once per repository")
	require.Equal(t, 1, minted, "a token lives until a minute before it expires")

	withID := widgets
	withID.InstallationID = sb.InstallationID("acme")
	acc2, sb2 := appAccess(t, 0, nil)
	withID.InstallationID = sb2.InstallationID("acme")
	require.NoError(t, readPull(t, acc2, withID))
	lookups, _ = opsOf(sb2, ghsandbox.OpGetRepoInstallation)
	require.Zero(t, lookups, "the run's recorded installation needs no look-up")
}

// A token refused before it expired by the worker's clock (the sandbox
// ends it: revoked, or clocks apart) is replaced once, and the request
// goes again: a 401 proves nothing happened.
func TestAnInstallationTokenThatExpiredIsReplacedAndTheRequestSucceeds(t *testing.T) {
	acc, sb := appAccess(t, 0, nil)
	require.NoError(t, readPull(t, acc, widgets))
	require.Equal(t, 1, sb.ExpireInstallationTokens())

	before := len(sb.Comments("acme", "widgets", 1))
	gh, err := acc.ClientFor("comment", widgets)
	require.NoError(t, err)
	_, _, err = gh.Issues.CreateComment(context.Background(), "acme", "widgets", 1, &gogithub.IssueComment{Body: gogithub.String("LGTM")})
	require.NoError(t, err, "the write's body is sent again with the new token")
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, before+1, "refused once, written once")
	require.Equal(t, testkit.SandboxAppSlug+"[bot]", comments[before].User)

	minted, refused := opsOf(sb, ghsandbox.OpCreateInstallationToken)
	require.Equal(t, 2, minted)
	require.Equal(t, 1, refused, "one request met the expired token, and went again")
}

// Tokens that live under the refresh margin are refreshed before every
// request: none is ever sent expired.
func TestShortLivedTokensAreRefreshedBeforeTheyExpire(t *testing.T) {
	acc, sb := appAccess(t, 30*time.Second, nil)
	for range 3 {
		require.NoError(t, readPull(t, acc, widgets))
	}
	minted, refused := opsOf(sb, ghsandbox.OpCreateInstallationToken)
	require.Equal(t, 3, minted)
	require.Zero(t, refused)
}

func TestAWrongAppIDIsAStartUpErrorNamingIt(t *testing.T) {
	acc, _ := appAccess(t, 0, func(c *github.Credentials) { c.AppID++ })
	err := acc.Identify(context.Background())
	var refused *github.AppAuthError
	require.ErrorAs(t, err, &refused)
	require.Contains(t, err.Error(), "GITHUB_APP_ID 4243 is not the app this private key belongs to")
}

func TestAWorkerLoginThatIsNotTheAppsBotStopsStartUp(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	url, _ := testkit.ServeSandbox(t, sb)
	acc, err := github.NewAppAccess(testkit.SandboxApp(t, sb, url, 0), nil, "someone-else[bot]")
	require.NoError(t, err)
	err = acc.Identify(context.Background())
	require.ErrorIs(t, err, github.ErrLoginMismatch)
	require.ErrorContains(t, err, `"agentrun-sandbox[bot]"`)
}

// A repository the app is not installed on is a step error naming it,
// which Temporal does not retry.
func TestARepositoryWithoutTheAppIsANonRetryableErrorNamingIt(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	url, _ := testkit.ServeSandbox(t, sb)
	creds := testkit.SandboxApp(t, sb, url, 0)
	key := creds.AppKey
	require.NoError(t, sb.SetApp(ghsandbox.App{ID: testkit.SandboxAppID, Slug: testkit.SandboxAppSlug, PublicKey: &key.PublicKey, NotInstalledOn: []string{"acme"}}))
	acc, err := github.NewAppAccess(creds, nil, "")
	require.NoError(t, err)

	err = github.ClassifyError("read acme/widgets#1", readPull(t, acc, widgets))
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.True(t, appErr.NonRetryable())
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.Contains(t, err.Error(), "not installed on acme/widgets")
}
