package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// modelRetryAfterSeconds is how long the rate-limited model provider asks
// the worker to wait: the window in which the model call is open and the
// worker is killed.
const modelRetryAfterSeconds = 3

// rateLimitedModel is an OpenAI-compatible provider that answers every chat
// completion with a 429 and a Retry-After, counting the calls.
func rateLimitedModel(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", strconv.Itoa(modelRetryAfterSeconds))
		w.WriteHeader(http.StatusTooManyRequests)
		fmt.Fprint(w, `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func openAIEnv(baseURL string) map[string]string {
	return map[string]string{
		"MODEL_PROVIDER":  "openai",
		"OPENAI_BASE_URL": baseURL + "/v1",
		"OPENAI_API_KEY":  "e2e-key",
		"OPENAI_MODEL":    "e2e-model",
	}
}

func TestFaultWorkerKilledElsewhereEveryRunCompletesWithOneComment(t *testing.T) {
	s := newStack(t)
	var runs []string

	t.Run("during a model call", func(t *testing.T) {
		// The offline model answers in microseconds, too fast to kill a worker
		// inside it; a provider that rate-limits keeps the ModelNext activity
		// open (between attempts) for as long as its Retry-After.
		const queue, runID = "kill-model", "fault-kill-model"
		model, calls := rateLimitedModel(t)
		first := s.StartWorkerOn(t, queue, openAIEnv(model.URL))
		MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
		Eventually(t, runTimeout, "the model call to wait for its retry", func() (struct{}, bool, string) {
			attempt, state, found, err := PendingActivity(t.Context(), s.Client(), runID, "ModelNext")
			if err != nil {
				return struct{}{}, false, err.Error()
			}
			seen := fmt.Sprintf("ModelNext pending=%t attempt=%d state=%s", found, attempt, state)
			return struct{}{}, found && attempt >= 2 && state == enumspb.PENDING_ACTIVITY_STATE_SCHEDULED, seen
		})

		first.Kill()
		s.StartWorkerOn(t, queue, nil)

		WaitAndApprove(t, s.Client(), runID, runTimeout)
		snap := requireOnePostedComment(t, s, runID)
		require.GreaterOrEqual(t, calls.Load(), int64(1), "the killed worker's model call reached the provider")
		require.Equal(t, api.StepModelCall, snap.Steps[0].Type)
		require.Equal(t, api.StepSucceeded, snap.Steps[0].Status)
		runs = append(runs, runID)
	})

	t.Run("during a read tool", func(t *testing.T) {
		const queue, runID = "kill-read", "fault-kill-read"
		first := s.StartWorkerOn(t, queue, nil)
		readsBefore := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpGetPullRequest))
		s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeDelay, DelayMs: 120000})
		MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
		Eventually(t, runTimeout, "get_pull_request to be in flight", func() (struct{}, bool, string) {
			reads := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpGetPullRequest)) - readsBefore
			return struct{}{}, reads == 1, fmt.Sprintf("%d get_pull_request requests", reads)
		})

		first.Kill()
		s.StartWorkerOn(t, queue, nil)

		WaitAndApprove(t, s.Client(), runID, runTimeout)
		requireOnePostedComment(t, s, runID)
		reads := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpGetPullRequest)) - readsBefore
		require.Equal(t, 2, reads, "the read was made again by the new worker")
		runs = append(runs, runID)
	})

	t.Run("while waiting for approval", func(t *testing.T) {
		const queue, runID = "kill-approval", "fault-kill-approval"
		first := s.StartWorkerOn(t, queue, nil)
		MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
		WaitForStatus(t, s.Client(), runID, api.RunWaitingForUser, runTimeout)

		first.Kill()
		s.StartWorkerOn(t, queue, nil)

		WaitAndApprove(t, s.Client(), runID, runTimeout)
		requireOnePostedComment(t, s, runID)
		runs = append(runs, runID)
	})

	posted := s.Sandbox.PostedComments(t)
	require.Len(t, runs, 3)
	require.Equal(t, len(runs), posted.Total())
	require.Zero(t, posted.Duplicates())
}
