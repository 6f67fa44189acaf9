package main

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/runclient"
)

// signedStart posts a start under key, signed as a client signs it.
func (s *stack) signedStart(key string, body []byte) (*http.Response, map[string]string) {
	s.t.Helper()
	return s.do(s.signedPost("/v1/runs", body, key))
}

// The whole path a bot takes: start over HTTP, find the run waiting in the
// listing, approve it, and the real worker posts one review.
func TestRunStartedOverHTTPIsListedWaitingAndPostsOneCommentOnceApproved(t *testing.T) {
	s := startStack(t)
	body := []byte(`{"repo":"acme/widgets","pullNumber":1,"approvers":["alice"],"userId":"carol"}`)

	resp, reply := s.signedStart("bot-run-1", body)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, reply)
	runID := reply["runId"]
	require.Equal(t, "/v1/runs/"+runID, resp.Header.Get("Location"))
	require.Equal(t, api.DefaultAgent, reply["agent"])

	action := s.waitingAction(runID)
	require.Empty(t, s.postedReviews(), "nothing is posted before approval")

	// Visibility is eventually consistent: the run shows as waiting soon.
	require.Eventually(t, func() bool {
		page, ok := s.listRuns("/v1/runs?status=waiting_for_user&agent=pr-review")
		return ok && len(page.Runs) == 1 && page.Runs[0].RunID == runID && page.Runs[0].Agent == api.DefaultAgent
	}, waitLong, 100*time.Millisecond)
	page, ok := s.listRuns("/v1/runs?agent=triage")
	require.True(t, ok)
	require.Empty(t, page.Runs)

	again, againReply := s.signedStart("bot-run-1", body)
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	require.Equal(t, runID, againReply["runId"], "a retry of the start finds the run")

	code, answer := s.signedDecision(runID, action.ID, approvalsrv.Decision{Decision: "approve", Approver: "alice", RequestID: "bot-1"})
	require.Equal(t, http.StatusAccepted, code, answer)
	s.followEvents(runID)
	require.Len(t, s.postedReviews(), 1)
}

func (s *stack) listRuns(target string) (runclient.Page, bool) {
	return readSigned[runclient.Page](s, target)
}
