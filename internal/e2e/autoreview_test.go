package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The sandbox process delivers pull_request events to the approval server
// process, signed, and a worker process reviews: opening the pull request
// starts a review that waits; a push while it waits supersedes it (nothing
// stale posted) and starts the review of the new head, which, approved,
// posts the one comment.
func TestFaultAPushWhileTheReviewWaitsSupersedesItAcrossRealProcesses(t *testing.T) {
	s := newStack(t)
	approvalAddr := testkit.FreeAddress(t)
	sandbox := StartSandboxWith(t, s.Bins.Sandbox, map[string]string{
		"SANDBOX_WEBHOOK_URL": "http://" + approvalAddr + "/github/webhook", "SANDBOX_WEBHOOK_SECRET": webhookSecret,
	})
	StartApprovalServerWith(t, s, approvalAddr, map[string]string{
		"GITHUB_API_URL": sandbox.APIURL(), "AGENTRUN_AUTO_REVIEW": "acme/widgets", "AGENT_TASK_QUEUE": s.Queue,
	})
	StartWorker(t, s.Bins.Worker, s.Client(), WorkerSpec{Name: "worker-1", TemporalAddress: s.Server.Address(),
		TaskQueue: s.Queue, GitHubAPIURL: sandbox.APIURL()})
	c := s.Client()
	event := func(body string) ghsandbox.PullEventAnswer {
		t.Helper()
		resp, err := http.Post(sandbox.base+"/_sandbox/pulls/acme/widgets/1/events", "application/json", bytes.NewReader([]byte(body)))
		require.NoError(t, err)
		defer resp.Body.Close()
		var a ghsandbox.PullEventAnswer
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
		require.Equal(t, http.StatusAccepted, a.Delivered, a.DeliveryError)
		return a
	}

	opened := event(`{"action":"opened"}`)
	first := approvalsrv.PullReviewRunID("acme/widgets", 1, opened.Head, api.DefaultAgent)
	waiting := WaitForStatus(t, c, first, api.RunWaitingForUser, time.Minute)

	pushed := event(`{"action":"synchronize","commits":[{"message":"Guard","files":[{"filename":"cache/guard.go","status":"added","patch":"@@ -0,0 +1 @@\n+package cache"}]}]}`)
	second := approvalsrv.PullReviewRunID("acme/widgets", 1, pushed.Head, api.DefaultAgent)
	done := WaitForStatus(t, c, first, api.RunCompleted, time.Minute)
	require.Equal(t, api.LabelSuperseded, done.Label)
	require.Equal(t, api.ActionExpired, done.PendingAction.State)
	require.Equal(t, waiting.PendingAction.ID, done.PendingAction.ID)
	require.Equal(t, "superseded by "+pushed.Head, done.PendingAction.Reason)
	require.Empty(t, sandbox.PostedComments(t), "nothing stale is posted")

	WaitAndApprove(t, c, second, time.Minute)
	WaitForStatus(t, c, second, api.RunCompleted, time.Minute)
	require.Equal(t, 1, sandbox.PostedComments(t).Total())

	// Each run a delivery started shows itself as the one check run on its
	// head: the superseded one concluded neutral, the posted one success.
	conclusionOn := func(head, runID string) string {
		var list struct {
			CheckRuns []struct {
				ExternalID string `json:"external_id"`
				Status     string `json:"status"`
				Conclusion string `json:"conclusion"`
			} `json:"check_runs"`
		}
		require.Eventually(t, func() bool {
			resp, err := http.Get(sandbox.APIURL() + "repos/acme/widgets/commits/" + head + "/check-runs?check_name=agentrun/pr-review&filter=all")
			if err != nil {
				return false
			}
			defer resp.Body.Close()
			return json.NewDecoder(resp.Body).Decode(&list) == nil && len(list.CheckRuns) == 1 && list.CheckRuns[0].Status == "completed"
		}, time.Minute, 100*time.Millisecond, "one completed check run on %s", head)
		require.Equal(t, runID, list.CheckRuns[0].ExternalID)
		return list.CheckRuns[0].Conclusion
	}
	require.Equal(t, "neutral", conclusionOn(opened.Head, first))
	require.Equal(t, "success", conclusionOn(pushed.Head, second))
}

// An entry with :post lifts the gate for the runs it starts, across real
// processes: the opened delivery's review posts its one comment without a
// person, the run's record names the rule, and no action ever waited. A
// repository the same server lists with ask still waits.
func TestAPostEntrysReviewPostsWithoutAskingAcrossRealProcesses(t *testing.T) {
	s := newStack(t)
	approvalAddr := testkit.FreeAddress(t)
	sandbox := StartSandboxWith(t, s.Bins.Sandbox, map[string]string{
		"SANDBOX_WEBHOOK_URL": "http://" + approvalAddr + "/github/webhook", "SANDBOX_WEBHOOK_SECRET": webhookSecret,
	})
	StartApprovalServerWith(t, s, approvalAddr, map[string]string{
		"GITHUB_API_URL": sandbox.APIURL(), "AGENTRUN_AUTO_REVIEW": "acme/widgets:post", "AGENT_TASK_QUEUE": s.Queue,
	})
	StartWorker(t, s.Bins.Worker, s.Client(), WorkerSpec{Name: "worker-1", TemporalAddress: s.Server.Address(),
		TaskQueue: s.Queue, GitHubAPIURL: sandbox.APIURL()})
	resp, err := http.Post(sandbox.base+"/_sandbox/pulls/acme/widgets/1/events", "application/json", bytes.NewReader([]byte(`{"action":"opened"}`)))
	require.NoError(t, err)
	defer resp.Body.Close()
	var a ghsandbox.PullEventAnswer
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&a))
	require.Equal(t, http.StatusAccepted, a.Delivered, a.DeliveryError)
	require.Contains(t, a.Response, "it posts without asking (AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post)")

	runID := approvalsrv.PullReviewRunID("acme/widgets", 1, a.Head, api.DefaultAgent)
	done := WaitForStatus(t, s.Client(), runID, api.RunCompleted, time.Minute)
	require.Equal(t, "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post", done.Run.PostsWithoutAsking)
	require.Len(t, done.Outcome.Posted, 1)
	require.Equal(t, 1, sandbox.PostedComments(t).Total(), "posted exactly once")
	require.Empty(t, done.Actions, "no action waited for a person")
	for _, st := range done.Steps {
		require.NotEqual(t, api.StepHumanApproval, st.Type, "no approval step")
	}
}
