package ghsandbox

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/require"
)

// loadRESTSchema reads one of the schemas extracted from GitHub's REST
// description (testdata/rest-schemas/README.md).
func loadRESTSchema(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "rest-schemas", name+".json"))
	require.NoError(t, err)
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(raw, &s), name)
	if !strings.HasPrefix(name, "error-") {
		// GitHub's error bodies carry a "status" its description leaves out.
		closeObjects(&s)
	}
	resolved, err := s.Resolve(nil)
	require.NoError(t, err, name)
	return resolved
}

// closeObjects refuses properties an object schema does not declare, so
// that a misspelt or invented field fails as a missing one does. GitHub's
// description leaves its objects open; the sandbox has no reason to send
// more than they say.
func closeObjects(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Properties != nil && s.AdditionalProperties == nil {
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	for _, sub := range s.Properties {
		closeObjects(sub)
	}
	for _, sub := range s.Defs {
		closeObjects(sub)
	}
	for _, list := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf, s.PrefixItems} {
		for _, sub := range list {
			closeObjects(sub)
		}
	}
	closeObjects(s.Items)
}

// conformanceCall is one request and the schema its answer must follow.
type conformanceCall struct {
	method, path, body string
	status             int
	schema             string
}

// TestEveryAnswerFollowsGitHubsRESTDescription calls every endpoint the
// sandbox serves, on the root and under /api/v3, with state in every list,
// and validates each answer, errors included, against GitHub's schema.
func TestEveryAnswerFollowsGitHubsRESTDescription(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	const repo = "/repos/acme/widgets"
	calls := []conformanceCall{
		{"POST", repo + "/issues/1/comments", `{"body":"first"}`, 201, "issues-create-comment"},
		{"POST", repo + "/pulls/1/reviews", `{"event":"REQUEST_CHANGES","body":"see inline","comments":[{"path":"cache/cache.go","line":3,"side":"LEFT","body":"why?"},{"path":"README.md","position":1,"body":"ok"}]}`, 200, "pulls-create-review"},
		{"POST", repo + "/pulls/2/reviews", `{"body":"draft"}`, 200, "pulls-create-review"},
		{"POST", repo + "/issues/1/labels", `{"labels":["bug","needs review"]}`, 200, "issues-add-labels"},
		{"POST", repo + "/issues/2/labels", `["Bug",{"name":"docs"}]`, 200, "issues-add-labels"},
		{"POST", repo + "/issues", `{"title":"Cache grows without bound","body":"seen in prod","labels":["bug"]}`, 201, "issues-create"},
		{"POST", repo + "/issues", `{"title":42}`, 201, "issues-create"},
		{"POST", repo + "/check-runs", `{"name":"agentrun/pr-review","head_sha":"9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42","external_id":"run-1","status":"in_progress","output":{"title":"Reading","summary":"s"}}`, 201, "checks-create"},
		{"PATCH", repo + "/check-runs/1", `{"status":"in_progress"}`, 404, "error-not-found"},
		{"PATCH", repo + "/issues/comments/2000000001", `{"body":"first, edited"}`, 200, "issues-update-comment"},
		{"PATCH", repo + "/issues/comments/1999999999", `{"body":"x"}`, 404, "error-not-found"},
		{"PATCH", repo + "/issues/comments/2000000001", `{"body":""}`, 422, "error-validation-failed"},
		{"GET", repo + "/issues/comments/2000000001", "", 200, "issues-get-comment"},
		{"GET", repo + "/issues/comments/1999999999", "", 404, "error-not-found"},
		{"GET", "/user", "", 200, "users-get-authenticated"},
		{"GET", repo + "/commits/9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42/check-runs?check_name=agentrun/pr-review&filter=all", "", 200, "checks-list-for-ref"},
		{"GET", repo + "/pulls/1", "", 200, "pulls-get"},
		{"GET", repo + "/pulls/1/files", "", 200, "pulls-list-files"},
		{"GET", repo + "/pulls/1/reviews", "", 200, "pulls-list-reviews"},
		{"GET", repo + "/pulls/2/reviews", "", 200, "pulls-list-reviews"},
		{"GET", repo + "/issues/1/comments", "", 200, "issues-list-comments"},
		{"GET", repo + "/issues/1/labels", "", 200, "issues-list-labels-on-issue"},
		{"GET", repo + "/issues/3/labels", "", 200, "issues-list-labels-on-issue"},
		// GitHub's description gives the repository's list the issue's
		// schema: an array of label.
		{"GET", repo + "/labels?per_page=100", "", 200, "issues-list-labels-on-issue"},
		{"GET", "/repos/acme/nope/labels", "", 404, "error-not-found"},
		{"GET", repo + "/issues?state=all", "", 200, "issues-list-for-repo"},
		{"GET", repo + "/issues?creator=carol&sort=created&direction=asc&per_page=1&page=1", "", 200, "issues-list-for-repo"},
		{"GET", repo + "/collaborators/alice/permission", "", 200, "repos-get-collaborator-permission-level"},
		{"GET", repo + "/collaborators/eve/permission", "", 200, "repos-get-collaborator-permission-level"},
		{"GET", repo + "/pulls/9", "", 404, "error-not-found"},
		{"GET", repo + "/pulls/9/reviews", "", 404, "error-not-found"},
		{"GET", repo + "/issues/9/labels", "", 404, "error-not-found"},
		{"GET", "/repos/acme/nope/issues", "", 404, "error-not-found"},
		{"POST", repo + "/issues", `{"body":"no title"}`, 422, "error-validation-failed"},
		{"POST", repo + "/issues", `{"title":"t","labels":null}`, 422, "error-not-found"},
		{"POST", repo + "/issues/1/labels", `{"labels":[""]}`, 422, "error-validation-failed"},
		{"POST", repo + "/issues/1/comments", `{"body":" "}`, 422, "error-validation-failed"},
		{"GET", repo + "/issues?state=bogus", "", 422, "error-validation-failed"},
		{"POST", repo + "/pulls/1/reviews", `{"event":"COMMENT","body":"x","comments":[{"path":"nope.go","line":1,"body":"x"}]}`, 422, "error-validation-failed-simple"},
	}
	schemas := map[string]*jsonschema.Resolved{}
	for _, prefix := range []string{"", "/api/v3"} {
		for _, c := range calls {
			if prefix != "" && c.method != "GET" {
				continue // the state is made once; the reads cover the prefix
			}
			a := call(t, c.method, srv.URL+prefix+c.path, c.body)
			require.Equal(t, c.status, a.status, "%s %s: %s", c.method, c.path, a.body)
			if schemas[c.schema] == nil {
				schemas[c.schema] = loadRESTSchema(t, c.schema)
			}
			var answer any
			require.NoError(t, json.Unmarshal(a.body, &answer))
			require.NoError(t, schemas[c.schema].Validate(answer), "%s %s%s answered %s", c.method, prefix, c.path, a.body)
			if list, ok := answer.([]any); ok {
				require.NotEmpty(t, list, "%s %s: an empty list proves nothing about its items", c.method, c.path)
			}
		}
	}

	served := map[string]bool{}
	for _, rec := range sb.Requests() {
		served[rec.Op] = true
	}
	require.ElementsMatch(t, servedOps, slices.Collect(maps.Keys(served)), "every endpoint is called")
}

// The schemas must be able to fail: an answer missing what GitHub always
// sends is refused, so that the test above is not vacuous.
func TestRESTSchemasRefuseAnswersMissingRequiredFields(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	schema := loadRESTSchema(t, "pulls-get")
	var pull map[string]any
	a := call(t, "GET", srv.URL+"/repos/acme/widgets/pulls/1", "")
	require.Equal(t, http.StatusOK, a.status)
	require.NoError(t, json.Unmarshal(a.body, &pull))
	require.NoError(t, schema.Validate(pull))

	for _, drop := range []string{"_links", "merged_at", "mergeable", "labels"} {
		broken := maps.Clone(pull)
		delete(broken, drop)
		require.Error(t, schema.Validate(broken), drop)
	}
	head := maps.Clone(pull["head"].(map[string]any))
	repo := maps.Clone(head["repo"].(map[string]any))
	delete(repo, "ssh_url")
	head["repo"] = repo
	broken := maps.Clone(pull)
	broken["head"] = head
	require.Error(t, schema.Validate(broken), "head.repo without ssh_url")

	broken = maps.Clone(pull)
	broken["merged_at"] = 7
	require.Error(t, schema.Validate(broken), "merged_at of the wrong type")

	broken = maps.Clone(pull)
	broken["merged_att"] = nil
	require.Error(t, schema.Validate(broken), "a field GitHub does not describe")
}
