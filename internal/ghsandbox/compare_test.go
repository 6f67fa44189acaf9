package ghsandbox

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func pushTo(t *testing.T, url string, body string) PullEventAnswer {
	t.Helper()
	a := call(t, "POST", url+"/_sandbox/pulls/acme/widgets/1/events", body)
	require.Equal(t, http.StatusOK, a.status, "%s", a.body)
	return decode[PullEventAnswer](t, a)
}

// The compare API answers what changed between two heads of a pull
// request, as GitHub does: ahead with only the newer commits' files after a
// push, diverged after a force-push, identical for one head; every answer
// follows GitHub's REST description.
func TestCompareAnswersWhatChangedBetweenTwoHeads(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	first := decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")).Head.SHA
	pushed := pushTo(t, srv.URL, `{"action":"synchronize","commits":[{"message":"Add docs","files":[{"filename":"docs/cache.md","status":"added","patch":"@@ -0,0 +1 @@\n+# Cache"}]},`+
		`{"message":"Guard","files":[{"filename":"cache/guard.go","status":"added","patch":"@@ -0,0 +1 @@\n+package cache"}]}]}`)
	forced := pushTo(t, srv.URL, `{"action":"synchronize","force":true,"commits":[{"message":"Rewrite","files":[{"filename":"cache/cache.go","status":"modified","patch":"@@ -1 +1 @@\n-a\n+b"}]}]}`)
	schema := loadRESTSchema(t, "repos-compare-commits")
	compare := func(base, head string) CommitComparison {
		t.Helper()
		a := call(t, "GET", srv.URL+"/repos/acme/widgets/compare/"+base+"..."+head, "")
		require.Equal(t, http.StatusOK, a.status, "%s", a.body)
		var v any
		require.NoError(t, json.Unmarshal(a.body, &v))
		require.NoError(t, schema.Validate(v), "%s", a.body)
		return decode[CommitComparison](t, a)
	}

	c := compare(first, pushed.Head)
	require.Equal(t, "ahead", c.Status)
	require.Equal(t, 2, c.AheadBy)
	require.Equal(t, []string{"Add docs", "Guard"}, []string{c.Commits[0].Commit.Message, c.Commits[1].Commit.Message})
	require.Equal(t, []string{"docs/cache.md", "cache/guard.go"}, []string{c.Files[0].Filename, c.Files[1].Filename},
		"only what the push changed")

	d := compare(pushed.Head, forced.Head)
	require.Equal(t, "diverged", d.Status, "after a force-push the old head is no ancestor")
	require.Equal(t, 3, d.BehindBy)
	require.Len(t, d.Files, 1)

	require.Equal(t, "identical", compare(forced.Head, forced.Head).Status)
	base := decode[PullRequest](t, call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")).Base.SHA
	require.Equal(t, "ahead", compare(base, forced.Head).Status)

	require.Equal(t, http.StatusNotFound, call(t, "GET", srv.URL+"/repos/acme/widgets/compare/"+first+"..unknown", "").status)
	require.Equal(t, http.StatusNotFound, call(t, "GET", srv.URL+"/repos/acme/widgets/compare/"+first+"..."+"0000000000000000000000000000000000000000", "").status)
}
