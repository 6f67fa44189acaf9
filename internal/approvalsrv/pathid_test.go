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
			h := newHarness(t, testConfig(), nil)
			h.runs.put("run-1", waitingRun("alice"))

			resp := h.do(c.method, c.path, strings.NewReader("{}"), map[string]string{"Content-Type": "application/json"})

			require.Equal(t, http.StatusBadRequest, resp.StatusCode)
			require.Contains(t, answer(t, resp)["error"], c.want)
			snapshots, events, lookups, listings := h.runs.counts()
			require.Zero(t, snapshots+events+lookups+listings)
		})
	}
}

func TestPathIDRulesAcceptTheIDsRunsHave(t *testing.T) {
	for _, id := range []string{"run-1", "review-acme-widgets-1-0123456789ab", "fault-approval-burst", "a.b_c:d", "aAzZ09", strings.Repeat("r", maxPathIDLength)} {
		require.NoError(t, checkPathID("runId", id), id)
	}
	for _, id := range []string{"", "run/1", "run`1", "run@1", "run{1", "run[1", "run 1", strings.Repeat("r", maxPathIDLength+1)} {
		require.Error(t, checkPathID("runId", id), id)
	}
	require.EqualError(t, pathIDsError("/runs/run%zz"), "runId is not a valid path segment")
	require.NoError(t, pathIDsError("/v1/approvals"))
	require.NoError(t, pathIDsError("/static/app.js"))
	require.NoError(t, pathIDsError("/v1/runs/run-1/events"))
	for _, id := range []string{"act-be23a84bb17f4733", "act-step-4", "act-1", "act-aAzZ09_-", "act-" + strings.Repeat("f", 60)} {
		require.NoError(t, checkActionID(id), id)
	}
	for _, id := range []string{"", "act-", "act-a'b", "act-a b", "act-1.2", "act-1:2", "step-4", "ACT-1", "act-" + strings.Repeat("f", 61)} {
		require.Error(t, checkActionID(id), id)
	}
}
