package approvalsrv

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBadPathIDsAnswer400BeforeAnyWork(t *testing.T) {
	long := strings.Repeat("r", maxPathIDLength+1)
	cases := map[string]struct {
		method, path, want string
	}{
		"run ID with a quote":          {http.MethodGet, "/v1/runs/run%271", "runId must be 1 to 128 characters"},
		"run ID with a space":          {http.MethodGet, "/v1/runs/run%201/events", "runId must be"},
		"run ID with an encoded slash": {http.MethodGet, "/runs/run%2F1", "runId must be"},
		"run ID too long":              {http.MethodGet, "/runs/" + long + "/panel", "runId must be"},
		"run ID of the event stream":   {http.MethodGet, "/runs/run%3C1/events", "runId must be"},
		"run ID of a decision":         {http.MethodPost, "/v1/runs/run%0A1/actions/act-1/decision", "runId must be"},
		"action ID without prefix":     {http.MethodPost, "/v1/runs/run-1/actions/nope/decision", "the action ID must look like act-0123456789abcdef"},
		"action ID of the form":        {http.MethodPost, "/runs/run-1/actions/act-1%3B/decision", "the action ID must look like"},
		"step ID":                      {http.MethodPost, "/v1/runs/run-1/steps/step%20/resolve", "stepId must be"},
		"empty run ID":                 {http.MethodGet, "/v1/runs/", "runId must be"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil, "alice")

			resp := h.do(c.method, c.path, strings.NewReader("{}"), map[string]string{"Content-Type": "application/json"})

			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], c.want)
			snapshots, events, lookups, listings := h.runs.counts()
			require.Zero(t, snapshots+events+lookups+listings)
		})
	}
}

// The check reads the path as ServeMux does; the rules themselves are
// request's (TestPathIDRulesAcceptTheIDsRunsHave).
func TestPathIDCheckReadsOnlyTheRoutesIDs(t *testing.T) {
	require.EqualError(t, pathIDsError("/runs/run%zz"), "runId is not a valid path segment")
	require.NoError(t, pathIDsError("/v1/approvals"))
	require.NoError(t, pathIDsError("/static/app.js"))
	require.NoError(t, pathIDsError("/v1/runs/run-1/events"))
	require.Error(t, pathIDsError("/v1/runs/run%60x/events"))
	require.Error(t, pathIDsError("/v1/runs/run-1/actions/step-4/decision"))
}

// A path that ends on "actions" or "steps" names no ID to check: it is no
// route, and the check must let ServeMux say so rather than fail itself.
func TestPathEndingBeforeAnIDIsLeftToTheRoutes(t *testing.T) {
	require.NoError(t, pathIDsError("/v1/runs/run-1/actions"))
	require.NoError(t, pathIDsError("/runs/run-1/steps"))

	h := waitingHarness(t, nil, "alice")
	resp := h.do(http.MethodPost, "/v1/runs/run-1/actions", strings.NewReader("{}"), map[string]string{"Content-Type": "application/json"})

	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}
