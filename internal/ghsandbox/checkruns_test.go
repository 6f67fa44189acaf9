package ghsandbox

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const pull1Head = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"

// TestCheckRunsFollowGitHubsRESTDescription creates, updates (buttons,
// then a conclusion) and lists a check run, and validates every answer.
func TestCheckRunsFollowGitHubsRESTDescription(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	base := srv.URL + "/repos/acme/widgets"
	create, update, list := loadRESTSchema(t, "checks-create"), loadRESTSchema(t, "checks-update"), loadRESTSchema(t, "checks-list-for-ref")
	valid := func(s interface{ Validate(any) error }, a answer) map[string]any {
		t.Helper()
		var v map[string]any
		require.NoError(t, json.Unmarshal(a.body, &v), string(a.body))
		require.NoError(t, s.Validate(v), string(a.body))
		return v
	}

	a := call(t, "POST", base+"/check-runs", fmt.Sprintf(`{"name":"agentrun/pr-review","head_sha":%q,"external_id":"run-7","details_url":"http://approval/runs/run-7","status":"in_progress","output":{"title":"Reading the pull request","summary":"[run](http://approval/runs/run-7)"}}`, pull1Head))
	require.Equal(t, http.StatusCreated, a.status, string(a.body))
	made := valid(create, a)
	id := int64(made["id"].(float64))
	require.Equal(t, "run-7", made["external_id"])
	require.Len(t, made["pull_requests"], 1, "the open pull request at that head")

	a = call(t, "PATCH", fmt.Sprintf("%s/check-runs/%d", base, id), `{"output":{"title":"Waiting for approval","summary":"s"},"actions":[{"label":"Approve","description":"Post the review","identifier":"approve-0123456789ab"},{"label":"Reject","description":"Post nothing","identifier":"reject-0123456789ab"}]}`)
	require.Equal(t, http.StatusOK, a.status, string(a.body))
	valid(update, a)
	a = call(t, "PATCH", fmt.Sprintf("%s/check-runs/%d", base, id), `{"conclusion":"success","output":{"title":"Done","summary":"s"},"actions":[]}`)
	require.Equal(t, http.StatusOK, a.status, string(a.body))
	done := valid(update, a)
	require.Equal(t, "completed", done["status"], "a conclusion completes the run")
	require.NotNil(t, done["completed_at"])

	runs := sb.CheckRuns("acme", "widgets", pull1Head)
	require.Len(t, runs, 1)
	require.Equal(t, "success", runs[0].Conclusion)
	require.Empty(t, runs[0].Actions, "an empty list takes the buttons away")
	require.Equal(t, 2, runs[0].Updates)

	for _, ref := range []string{pull1Head, "feature%2Fwidget-cache"} {
		a = call(t, "GET", base+"/commits/"+ref+"/check-runs?check_name=agentrun/pr-review", "")
		require.Equal(t, http.StatusOK, a.status, string(a.body))
		got := valid(list, a)
		require.EqualValues(t, 1, got["total_count"], ref)
	}
	a = call(t, "GET", base+"/commits/"+pull1Head+"/check-runs?check_name=other", "")
	require.EqualValues(t, 0, valid(list, a)["total_count"])
}

// TestCheckRunListFindsEveryRunOfANameOnlyWithFilterAll: the default
// filter (latest) shows one run per name, as GitHub's does, so a client
// looking for its own by external_id must ask for all.
func TestCheckRunListFindsEveryRunOfANameOnlyWithFilterAll(t *testing.T) {
	_, srv := startSandbox(t, DefaultFixture())
	base := srv.URL + "/repos/acme/widgets"
	for _, ext := range []string{"run-a", "run-b"} {
		a := call(t, "POST", base+"/check-runs", fmt.Sprintf(`{"name":"agentrun/pr-review","head_sha":%q,"external_id":%q}`, pull1Head, ext))
		require.Equal(t, http.StatusCreated, a.status, string(a.body))
	}
	latest := decode[CheckRunList](t, call(t, "GET", base+"/commits/"+pull1Head+"/check-runs?check_name=agentrun/pr-review", ""))
	require.Equal(t, 1, latest.TotalCount)
	require.Equal(t, "run-b", *latest.CheckRuns[0].ExternalID)
	all := decode[CheckRunList](t, call(t, "GET", base+"/commits/"+pull1Head+"/check-runs?check_name=agentrun/pr-review&filter=all", ""))
	require.Equal(t, 2, all.TotalCount)
}

// TestCheckRunRequestsGitHubRefuses: what GitHub answers 422 or 404 for
// changes nothing.
func TestCheckRunRequestsGitHubRefuses(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	base := srv.URL + "/repos/acme/widgets"
	for name, tc := range map[string]struct {
		method, path, body string
		status             int
	}{
		"no name":             {"POST", "/check-runs", fmt.Sprintf(`{"head_sha":%q}`, pull1Head), 422},
		"unknown commit":      {"POST", "/check-runs", `{"name":"x","head_sha":"0000000000000000000000000000000000000000"}`, 422},
		"completed, no concl": {"POST", "/check-runs", fmt.Sprintf(`{"name":"x","head_sha":%q,"status":"completed"}`, pull1Head), 422},
		"bad conclusion":      {"POST", "/check-runs", fmt.Sprintf(`{"name":"x","head_sha":%q,"conclusion":"stale"}`, pull1Head), 422},
		"identifier too long": {"POST", "/check-runs", fmt.Sprintf(`{"name":"x","head_sha":%q,"actions":[{"label":"Approve","description":"d","identifier":"approve-0123456789abc"}]}`, pull1Head), 422},
		"four actions":        {"POST", "/check-runs", fmt.Sprintf(`{"name":"x","head_sha":%q,"actions":[{"label":"a","description":"d","identifier":"1"},{"label":"a","description":"d","identifier":"2"},{"label":"a","description":"d","identifier":"3"},{"label":"a","description":"d","identifier":"4"}]}`, pull1Head), 422},
		"unknown repo":        {"POST", "/../nope/check-runs", fmt.Sprintf(`{"name":"x","head_sha":%q}`, pull1Head), 404},
		"unknown check run":   {"PATCH", "/check-runs/42", `{"status":"in_progress"}`, 404},
		"list unknown ref":    {"GET", "/commits/nope/check-runs", "", 422},
		"list bad filter":     {"GET", "/commits/" + pull1Head + "/check-runs?filter=newest", "", 422},
	} {
		path := base + tc.path
		if tc.path == "/../nope/check-runs" {
			path = srv.URL + "/repos/acme/nope/check-runs"
		}
		a := call(t, tc.method, path, tc.body)
		require.Equal(t, tc.status, a.status, "%s: %s", name, a.body)
	}
	require.Empty(t, sb.CheckRuns("acme", "widgets", pull1Head))
}

// TestLostCheckRunCreateStillCreatesIt: a drop_response fault creates the
// check run and loses the answer, which the list then shows.
func TestLostCheckRunCreateStillCreatesIt(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpCreateCheckRun, Mode: ModeDropResponse}))
	req, err := http.NewRequest("POST", srv.URL+"/repos/acme/widgets/check-runs",
		jsonBody(fmt.Sprintf(`{"name":"agentrun/pr-review","head_sha":%q,"external_id":"run-9"}`, pull1Head)))
	require.NoError(t, err)
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err, "the answer is lost")
	runs := sb.CheckRuns("acme", "widgets", pull1Head)
	require.Len(t, runs, 1)
	require.Equal(t, "run-9", runs[0].ExternalID)
}

func jsonBody(s string) *strings.Reader { return strings.NewReader(s) }
