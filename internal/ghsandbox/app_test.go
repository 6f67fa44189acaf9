package ghsandbox

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

const testAppID = 77

func appSandbox(t *testing.T, app App) (*Server, *httptest.Server, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	sb, srv := startSandbox(t, DefaultFixture())
	app.ID, app.Slug, app.PublicKey = testAppID, "reviewer", &key.PublicKey
	require.NoError(t, sb.SetApp(app))
	return sb, srv, key
}

// asApp sends a request with a JWT signed by key for appID, the way
// ghinstallation signs it.
func asApp(t *testing.T, key *rsa.PrivateKey, appID int64, method, url, body string) answer {
	t.Helper()
	tr := ghinstallation.NewAppsTransportFromPrivateKey(http.DefaultTransport, appID, key)
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

func withToken(t *testing.T, token, method, url string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "token "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

func mintToken(t *testing.T, sb *Server, srv *httptest.Server, key *rsa.PrivateKey, owner string) string {
	t.Helper()
	a := asApp(t, key, testAppID, "POST", fmt.Sprintf("%s/app/installations/%d/access_tokens", srv.URL, sb.InstallationID(owner)), "")
	require.Equal(t, http.StatusCreated, a.status, "%s", a.body)
	return decode[InstallationToken](t, a).Token
}

// Every answer of the app's endpoints, errors included, follows GitHub's
// REST description, on the root and under /api/v3.
func TestAppAnswersFollowGitHubsRESTDescription(t *testing.T) {
	sb, srv, key := appSandbox(t, App{})
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	schemas := map[string]*jsonschema.Resolved{}
	validate := func(name string, a answer, what string) {
		if schemas[name] == nil {
			schemas[name] = loadRESTSchema(t, name)
		}
		var v any
		require.NoError(t, json.Unmarshal(a.body, &v))
		require.NoError(t, schemas[name].Validate(v), "%s answered %s", what, a.body)
	}
	for _, prefix := range []string{"", "/api/v3"} {
		base := srv.URL + prefix
		inst := sb.InstallationID("acme")
		for _, c := range []struct {
			key          *rsa.PrivateKey
			appID        int64
			method, path string
			status       int
			schema       string
		}{
			{key, testAppID, "GET", "/app", 200, "apps-get-authenticated"},
			{key, testAppID, "GET", "/repos/acme/widgets/installation", 200, "apps-get-repo-installation"},
			{key, testAppID, "POST", fmt.Sprintf("/app/installations/%d/access_tokens", inst), 201, "apps-create-installation-access-token"},
			{key, testAppID, "GET", "/repos/acme/nope/installation", 404, "error-not-found"},
			{key, testAppID, "POST", "/app/installations/1/access_tokens", 404, "error-not-found"},
			{other, testAppID, "GET", "/app", 401, "error-requires-authentication"},
			{key, testAppID + 1, "POST", fmt.Sprintf("/app/installations/%d/access_tokens", inst), 401, "error-requires-authentication"},
		} {
			what := fmt.Sprintf("%s %s%s", c.method, prefix, c.path)
			a := asApp(t, c.key, c.appID, c.method, base+c.path, "")
			require.Equal(t, c.status, a.status, "%s: %s", what, a.body)
			validate(c.schema, a, what)
		}
		token := mintToken(t, sb, srv, key, "acme")
		a := withToken(t, token, "GET", base+"/user")
		require.Equal(t, http.StatusForbidden, a.status, "an installation token has no user: %s", a.body)
		validate("error-requires-authentication", a, "GET /user with an installation token")
	}
	served := map[string]bool{}
	for _, rec := range sb.Requests() {
		served[rec.Op] = true
	}
	for _, op := range appOps {
		require.True(t, served[op], "%s is called; served %v", op, slices.Sorted(maps.Keys(served)))
	}
}

// An installation token works on its account's repositories until it
// expires, and then GitHub's 401 answers; the bot it writes as is the
// app's.
func TestInstallationTokenIsRefusedOnceExpiredOrOnAnotherAccount(t *testing.T) {
	sb, srv, key := appSandbox(t, App{})
	token := mintToken(t, sb, srv, key, "acme")

	require.Equal(t, http.StatusOK, withToken(t, token, "GET", srv.URL+"/repos/acme/widgets/pulls/1").status)
	require.Equal(t, "reviewer[bot]", sb.BotLogin())

	require.Equal(t, 1, sb.ExpireInstallationTokens())
	a := withToken(t, token, "GET", srv.URL+"/repos/acme/widgets/pulls/1")
	require.Equal(t, http.StatusUnauthorized, a.status)
	require.Contains(t, string(a.body), "Bad credentials")
	require.Equal(t, http.StatusUnauthorized, withToken(t, "ghs_made_up", "GET", srv.URL+"/repos/acme/widgets/pulls/1").status)

	fresh := mintToken(t, sb, srv, key, "acme")
	require.Equal(t, http.StatusOK, withToken(t, fresh, "GET", srv.URL+"/repos/acme/widgets/pulls/1").status)
	require.Equal(t, http.StatusOK, withToken(t, "any-other-token", "GET", srv.URL+"/repos/acme/widgets/pulls/1").status,
		"a token that is not an installation's is the fixture's bot, as before")
}

func TestInstallationTokenLivesForTheConfiguredTime(t *testing.T) {
	sb, srv, key := appSandbox(t, App{TokenLifetime: 90 * time.Second})
	before := time.Now().Truncate(time.Second)
	a := asApp(t, key, testAppID, "POST", fmt.Sprintf("%s/app/installations/%d/access_tokens", srv.URL, sb.InstallationID("acme")), "")
	require.Equal(t, http.StatusCreated, a.status)
	expires, err := time.Parse(time.RFC3339, decode[InstallationToken](t, a).ExpiresAt)
	require.NoError(t, err)
	require.False(t, expires.Before(before.Add(90*time.Second)))
	require.False(t, expires.After(time.Now().Add(90*time.Second)))
}

func TestAppNotInstalledOnAnAccountHasNoInstallationThere(t *testing.T) {
	sb, srv, key := appSandbox(t, App{NotInstalledOn: []string{"ACME"}})
	require.Zero(t, sb.InstallationID("acme"))
	a := asApp(t, key, testAppID, "GET", srv.URL+"/repos/acme/widgets/installation", "")
	require.Equal(t, http.StatusNotFound, a.status)
}
