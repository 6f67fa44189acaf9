package ghsandbox

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

func startSandbox(t *testing.T, f Fixture) (*Server, *httptest.Server) {
	t.Helper()
	sb := New(f)
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	return sb, srv
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func call(t *testing.T, method, url, body string) answer {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{status: resp.StatusCode, header: resp.Header, body: b}
}

func decode[T any](t *testing.T, a answer) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(a.body, &v), string(a.body))
	return v
}

func fixtureWithFiles(n int) Fixture {
	f := Fixture{BotLogin: "bot[bot]", Repos: []FixtureRepo{{Owner: "acme", Name: "widgets"}}}
	pull := FixturePull{Number: 1, Title: "many files", Author: "carol", State: "open"}
	for i := range n {
		pull.Files = append(pull.Files, FixtureFile{
			Filename: fmt.Sprintf("pkg/file%03d.go", i), Status: "added", Patch: "@@ -0,0 +1 @@\n+package pkg",
		})
	}
	f.Repos[0].Pulls = []FixturePull{pull}
	return f
}

func TestGetPullRequestDerivesSizesFromThePatches(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())

	a := call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")

	require.Equal(t, http.StatusOK, a.status)
	pr := decode[*github.PullRequest](t, a)
	require.Equal(t, 1, pr.GetNumber())
	require.Equal(t, "carol", pr.GetUser().GetLogin())
	require.Equal(t, 3, pr.GetChangedFiles())
	require.Equal(t, 32, pr.GetAdditions())
	require.Equal(t, 6, pr.GetDeletions())
	require.Equal(t, srv.URL+"/acme/widgets/pull/1", pr.GetHTMLURL())
}

func TestListFilesPagesWithLinkHeaders(t *testing.T) {
	_, srv := startSandbox(t, fixtureWithFiles(7))
	base := srv.URL + "/repos/acme/widgets/pulls/1/files"

	first := call(t, "GET", base+"?per_page=3", "")
	require.Equal(t, http.StatusOK, first.status)
	require.Len(t, decode[[]*github.CommitFile](t, first), 3)
	require.Equal(t,
		fmt.Sprintf(`<%s?page=2&per_page=3>; rel="next", <%s?page=3&per_page=3>; rel="last"`, base, base),
		first.header.Get("Link"))

	last := call(t, "GET", base+"?per_page=3&page=3", "")
	files := decode[[]*github.CommitFile](t, last)
	require.Len(t, files, 1)
	require.Equal(t, "pkg/file006.go", files[0].GetFilename())
	require.Equal(t,
		fmt.Sprintf(`<%s?page=2&per_page=3>; rel="prev", <%s?page=1&per_page=3>; rel="first"`, base, base),
		last.header.Get("Link"))
}

func TestListFilesCapsPageSizeAtOneHundredAndDefaultsToThirty(t *testing.T) {
	_, srv := startSandbox(t, fixtureWithFiles(150))
	base := srv.URL + "/repos/acme/widgets/pulls/1/files"

	require.Len(t, decode[[]*github.CommitFile](t, call(t, "GET", base+"?per_page=500", "")), 100)
	require.Len(t, decode[[]*github.CommitFile](t, call(t, "GET", base, "")), 30)
}

func TestSinglePageHasNoLinkHeader(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())

	a := call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1/files", "")

	require.Equal(t, http.StatusOK, a.status)
	require.Empty(t, a.header.Get("Link"))
}

func TestEnterprisePrefixServesTheSameAPIAndKeepsItInLinks(t *testing.T) {
	_, srv := startSandbox(t, fixtureWithFiles(3))

	a := call(t, "GET", srv.URL+"/api/v3/repos/acme/widgets/pulls/1/files?per_page=1", "")

	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.header.Get("Link"), srv.URL+"/api/v3/repos/acme/widgets/pulls/1/files?page=2")
}

func TestUnknownRepoOrPullAnswersGitHubsNotFound(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	for _, p := range []string{"/repos/acme/nope/pulls/1", "/repos/acme/widgets/pulls/99", "/repos/acme/widgets/issues/99/comments", "/repos/acme/widgets/pulls/x/files"} {
		a := call(t, "GET", srv.URL+p, "")
		require.Equal(t, http.StatusNotFound, a.status, p)
		body := decode[ErrorBody](t, a)
		require.Equal(t, "Not Found", body.Message, p)
		require.NotEmpty(t, body.DocumentationURL, p)
	}
}

func TestCreateCommentAnswers201AsTheBot(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"Looks good"}`)

	require.Equal(t, http.StatusCreated, a.status)
	c := decode[*github.IssueComment](t, a)
	require.NotZero(t, c.GetID())
	require.Equal(t, "agentrun[bot]", c.GetUser().GetLogin())
	require.Equal(t, fmt.Sprintf("%s/acme/widgets/pull/1#issuecomment-%d", srv.URL, c.GetID()), c.GetHTMLURL())
	require.False(t, c.GetCreatedAt().IsZero())
	require.Equal(t, c.GetURL(), a.header.Get("Location"))
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
}

func TestCreateCommentWithEmptyBodyIsAValidationFailure(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"  "}`)

	require.Equal(t, http.StatusUnprocessableEntity, a.status)
	body := decode[ErrorBody](t, a)
	require.Equal(t, "Validation Failed", body.Message)
	require.Equal(t, []ValidationError{{Resource: "IssueComment", Field: "body", Code: "missing_field"}}, body.Errors)
	require.Empty(t, sb.Comments("acme", "widgets", 1))
}

func TestCreateCommentWithMalformedJSONIsABadRequest(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":`)

	require.Equal(t, http.StatusBadRequest, a.status)
	require.Equal(t, "Problems parsing JSON", decode[ErrorBody](t, a).Message)
}

func TestConcurrentCommentsAllPersistWithDistinctIDs(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", srv.URL+"/repos/acme/widgets/issues/1/comments",
				strings.NewReader(fmt.Sprintf(`{"body":"comment %d"}`, i)))
			resp, err := http.DefaultClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()

	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, n)
	ids := map[int64]bool{}
	for _, c := range comments {
		ids[c.ID] = true
	}
	require.Len(t, ids, n)
}

func TestCollaboratorPermissions(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	for login, want := range map[string]string{"alice": "admin", "bob": "write", "mallory": "read", "eve": "none", "Bob": "write"} {
		a := call(t, "GET", srv.URL+"/repos/acme/widgets/collaborators/"+login+"/permission", "")
		require.Equal(t, http.StatusOK, a.status, login)
		p := decode[CollaboratorPermission](t, a)
		require.Equal(t, want, p.Permission, login)
		require.Equal(t, want, p.RoleName, login)
		require.Equal(t, login, p.User.Login)
	}
	require.Equal(t, http.StatusNotFound, call(t, "GET", srv.URL+"/repos/acme/nope/collaborators/bob/permission", "").status)
}

func TestPullPageShowsPostedComments(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	c := decode[*github.IssueComment](t, call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"<b>hi</b>"}`))

	a := call(t, "GET", c.GetHTMLURL(), "")

	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, string(a.body), fmt.Sprintf(`id="issuecomment-%d"`, c.GetID()))
	require.Contains(t, string(a.body), "<p><b>hi</b></p>", "rendered as GitHub renders it (sanitized)")
}
