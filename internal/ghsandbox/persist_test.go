package ghsandbox

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

// startPersistentSandbox serves a sandbox kept in path until stop is called
// (or the test ends), so that a test can restart it over the same file.
func startPersistentSandbox(t *testing.T, path string) (sb *Server, url string, stop func()) {
	t.Helper()
	sb, err := NewPersistent(DefaultFixture(), path)
	require.NoError(t, err)
	srv := httptest.NewServer(sb)
	t.Cleanup(srv.Close)
	return sb, srv.URL, srv.Close
}

func commentIDs(comments []*github.IssueComment) []int64 {
	ids := make([]int64, 0, len(comments))
	for _, c := range comments {
		ids = append(ids, c.GetID())
	}
	return ids
}

func TestRestartedSandboxListsItsCommentsAndGivesTheNextCommentAFreshID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")
	first, url, stop := startPersistentSandbox(t, path)
	posted := decode[*github.IssueComment](t, call(t, "POST", url+"/repos/acme/widgets/issues/1/comments", `{"body":"review"}`))
	_, err := first.PostAs(CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: "carol", Body: "thanks"})
	require.NoError(t, err)
	before := decode[[]*github.IssueComment](t, call(t, "GET", url+"/repos/acme/widgets/issues/1/comments", ""))
	stop()

	_, url, _ = startPersistentSandbox(t, path)

	after := decode[[]*github.IssueComment](t, call(t, "GET", url+"/repos/acme/widgets/issues/1/comments", ""))
	require.Equal(t, commentIDs(before), commentIDs(after))
	require.Equal(t, "review", after[len(after)-2].GetBody())
	require.Equal(t, "carol", after[len(after)-1].GetUser().GetLogin())
	next := call(t, "POST", url+"/repos/acme/widgets/issues/2/comments", `{"body":"another"}`)
	require.Equal(t, http.StatusCreated, next.status)
	require.Greater(t, decode[*github.IssueComment](t, next).GetID(), slices.Max(commentIDs(after)), "an ID is never handed out twice")
	require.Greater(t, decode[*github.IssueComment](t, next).GetID(), posted.GetID())
}

func TestFirstStartOfAPersistentSandboxWritesTheFixturesState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")

	sb, err := NewPersistent(DefaultFixture(), path)
	require.NoError(t, err)

	require.FileExists(t, path, "a path nobody can write to fails at start, not at the first comment")
	again, err := NewPersistent(DefaultFixture(), path)
	require.NoError(t, err)
	require.Equal(t, sb.Comments("acme", "widgets", 1), again.Comments("acme", "widgets", 1))
}

func TestSavingLeavesOnlyTheStateFileBehind(t *testing.T) {
	dir := t.TempDir()
	_, url, _ := startPersistentSandbox(t, filepath.Join(dir, "ghsandbox.json"))

	for range 3 {
		require.Equal(t, http.StatusCreated, call(t, "POST", url+"/repos/acme/widgets/issues/1/comments", `{"body":"x"}`).status)
	}

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "temporary files are renamed into place or removed")
}

func TestCommentThatCannotBeSavedIsNotCreated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	require.NoError(t, os.Mkdir(dir, 0o755))
	sb, url, _ := startPersistentSandbox(t, filepath.Join(dir, "ghsandbox.json"))
	before := sb.Comments("acme", "widgets", 1)
	// Root ignores permissions; a vanished directory fails every save.
	require.NoError(t, os.RemoveAll(dir))

	a := call(t, "POST", url+"/repos/acme/widgets/issues/1/comments", `{"body":"lost"}`)
	_, err := sb.PostAs(CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: "carol", Body: "lost too"})

	require.Equal(t, http.StatusInternalServerError, a.status, string(a.body))
	require.ErrorIs(t, err, errState)
	require.Equal(t, before, sb.Comments("acme", "widgets", 1))
}

func TestUnusableStateFileIsRefusedSayingWhy(t *testing.T) {
	cases := map[string]struct{ content, want string }{
		"empty":                 {"", "not a state file"},
		"truncated":             {`{"version":1,"nextCommentId":`, "not a state file"},
		"unknown field":         {`{"version":1,"nextCommentId":2000000001,"pulls":[],"faults":[]}`, "not a state file"},
		"other version":         {`{"version":3,"nextCommentId":2000000001,"pulls":[]}`, "version 3"},
		"ID below the sequence": {`{"version":1,"nextCommentId":5,"pulls":[]}`, "nextCommentId 5"},
		"pull not in fixture": {`{"version":1,"nextCommentId":2000000001,"pulls":[{"owner":"acme","repo":"gadgets","number":1,"comments":[]}]}`,
			"acme/gadgets#1 is not in the fixture"},
		"ID not yet handed out": {`{"version":1,"nextCommentId":2000000002,"pulls":[{"owner":"acme","repo":"widgets","number":1,` +
			`"comments":[{"id":2000000002,"user":"bot","body":"b","createdAt":"2026-01-01T00:00:00Z"}]}]}`, "review ID 2000000002"},
		"issue on a pull's number": {`{"version":2,"nextCommentId":2000000001,"pulls":[],"repos":[{"owner":"acme","repo":"widgets","labels":[],` +
			`"issues":[{"number":2,"title":"t","body":"","user":"bot","state":"open","createdAt":"2026-01-01T00:00:00Z"}],"issueLabels":{}}]}`, "acme/widgets#2"},
		"label nobody made": {`{"version":2,"nextCommentId":2000000001,"pulls":[],"repos":[{"owner":"acme","repo":"widgets","labels":[],` +
			`"issues":[],"issueLabels":{"1":["bug"]}}]}`, `label "bug" on acme/widgets#1`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ghsandbox.json")
			require.NoError(t, os.WriteFile(path, []byte(tc.content), 0o644))

			_, err := NewPersistent(DefaultFixture(), path)

			require.ErrorIs(t, err, errState)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, path)
			raw, readErr := os.ReadFile(path)
			require.NoError(t, readErr)
			require.Equal(t, tc.content, string(raw), "a refused file is left for a person to look at")
		})
	}
}

func TestRestartedSandboxKeepsReviewsLabelsAndIssues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")
	first, url, stop := startPersistentSandbox(t, path)
	review := decode[map[string]any](t, call(t, "POST", url+"/repos/acme/widgets/pulls/1/reviews",
		`{"event":"COMMENT","body":"looks off","comments":[{"path":"README.md","line":7,"body":"typo"}]}`))
	require.Equal(t, http.StatusCreated, call(t, "POST", url+"/repos/acme/widgets/issues", `{"title":"flaky cache","labels":["bug"]}`).status)
	require.Equal(t, http.StatusOK, call(t, "POST", url+"/repos/acme/widgets/issues/2/labels", `["docs"]`).status)
	reviews, labels, issues := first.Reviews("acme", "widgets", 1), first.Labels("acme", "widgets", 2), first.Issues("acme", "widgets")
	stop()

	second, url, _ := startPersistentSandbox(t, path)

	require.Equal(t, reviews, second.Reviews("acme", "widgets", 1))
	require.Equal(t, labels, second.Labels("acme", "widgets", 2))
	require.Equal(t, issues, second.Issues("acme", "widgets"))
	require.Equal(t, []string{"bug"}, second.Labels("acme", "widgets", 3))
	next := decode[map[string]any](t, call(t, "POST", url+"/repos/acme/widgets/issues", `{"title":"another"}`))
	require.EqualValues(t, 4, next["number"], "issue numbers continue after the saved ones")
	again := decode[map[string]any](t, call(t, "POST", url+"/repos/acme/widgets/pulls/2/reviews", `{"event":"APPROVE"}`))
	require.NotEqual(t, review["id"], again["id"], "a restarted sandbox never hands out a review ID twice")
}

func TestRestartedSandboxKeepsItsCheckRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")
	first, url, stop := startPersistentSandbox(t, path)
	made := call(t, "POST", url+"/repos/acme/widgets/check-runs", `{"name":"agentrun/pr-review","head_sha":"9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42","external_id":"run-1","output":{"title":"Waiting","summary":"s"},"actions":[{"label":"Approve","description":"Post it","identifier":"approve-0123456789ab"}]}`)
	require.Equal(t, http.StatusCreated, made.status, string(made.body))
	before := first.CheckRuns("acme", "widgets", "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42")
	stop()

	second, url, _ := startPersistentSandbox(t, path)
	require.Equal(t, before, second.CheckRuns("acme", "widgets", "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"))
	next := call(t, "POST", url+"/repos/acme/widgets/issues/1/comments", `{"body":"x"}`)
	require.Greater(t, decode[*github.IssueComment](t, next).GetID(), before[0].ID, "an ID is never handed out twice")
}
