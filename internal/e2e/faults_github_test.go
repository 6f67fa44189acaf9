package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// githubDay runs one review on the shared stack with faults queued and
// returns the sandbox requests its run made, by operation.
func githubDay(t *testing.T, s *Stack, runID string, faults ...ghsandbox.Fault) map[string][]ghsandbox.RequestRecord {
	t.Helper()
	before := len(s.Sandbox.Requests(t))
	s.Sandbox.AddFaults(t, faults...)
	MustStartRun(t, s.Client(), s.Queue, runID, ReviewInput(toolTimeout))
	WaitAndApprove(t, s.Client(), runID, runTimeout)
	requireOnePostedComment(t, s, runID)
	require.Empty(t, s.Sandbox.Faults(t), "every injected fault was met")
	byOp := map[string][]ghsandbox.RequestRecord{}
	for _, r := range s.Sandbox.Requests(t)[before:] {
		byOp[r.Op] = append(byOp[r.Op], r)
	}
	return byOp
}

func statuses(log []ghsandbox.RequestRecord) []int {
	out := make([]int, len(log))
	for i, r := range log {
		out[i] = r.Status
	}
	return out
}

// requireWaitedUntil checks that the request after the limited one came no
// earlier than notBefore.
func requireWaitedUntil(t *testing.T, log []ghsandbox.RequestRecord, notBefore time.Time) {
	t.Helper()
	require.GreaterOrEqual(t, len(log), 2, "a request after the rate limit")
	next := log[1].At
	t.Logf("%s: limited at %s, retried %s later (not before %s later)", log[0].Op,
		log[0].At.Format("15:04:05.000"), next.Sub(log[0].At).Round(time.Millisecond), notBefore.Sub(log[0].At).Round(time.Millisecond))
	require.False(t, next.Before(notBefore), "retried at %s, %s after the limit; the limit said not before %s (%s after)",
		next.Format(time.RFC3339Nano), next.Sub(log[0].At), notBefore.Format(time.RFC3339Nano), notBefore.Sub(log[0].At))
}

func TestFaultBadGitHubDayRunsCompleteAndHonourRateLimits(t *testing.T) {
	s := newStack(t)
	s.StartWorker(t)

	t.Run("5xx bursts", func(t *testing.T) {
		log := githubDay(t, s, "fault-github-5xx",
			ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: http.StatusBadGateway, Count: 2},
			ghsandbox.Fault{Op: ghsandbox.OpListFiles, Mode: ghsandbox.ModeStatus, Status: http.StatusInternalServerError, Count: 2},
			ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: http.StatusServiceUnavailable, Count: 2},
		)

		require.Equal(t, []int{502, 502, 200}, statuses(log[ghsandbox.OpGetPullRequest]))
		require.Equal(t, []int{500, 500, 200}, statuses(log[ghsandbox.OpListFiles]))
		require.Equal(t, []int{503, 503, 201}, statuses(log[ghsandbox.OpCreateComment]))
	})

	t.Run("secondary rate limit with Retry-After", func(t *testing.T) {
		const readWait, createWait = 2, 3
		log := githubDay(t, s, "fault-github-secondary",
			ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: http.StatusTooManyRequests, RetryAfter: readWait},
			ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: http.StatusForbidden, RetryAfter: createWait},
		)

		reads, creates := log[ghsandbox.OpGetPullRequest], log[ghsandbox.OpCreateComment]
		require.Equal(t, []int{429, 200}, statuses(reads))
		require.Equal(t, []int{403, 201}, statuses(creates))
		requireWaitedUntil(t, reads, reads[0].At.Add(readWait*time.Second))
		requireWaitedUntil(t, creates, creates[0].At.Add(createWait*time.Second))
	})

	t.Run("primary rate limit until its reset", func(t *testing.T) {
		const readReset, createReset = 2, 3
		log := githubDay(t, s, "fault-github-primary",
			ghsandbox.Fault{Op: ghsandbox.OpListFiles, Mode: ghsandbox.ModeStatus, Primary: true, RetryAfter: readReset},
			ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Primary: true, RetryAfter: createReset},
		)

		reads, creates := log[ghsandbox.OpListFiles], log[ghsandbox.OpCreateComment]
		require.Equal(t, []int{403, 200}, statuses(reads))
		require.Equal(t, []int{403, 201}, statuses(creates))
		// X-RateLimit-Reset is whole unix seconds, the arrival plus the fault's seconds, rounded down.
		requireWaitedUntil(t, reads, reads[0].At.Add(readReset*time.Second).Truncate(time.Second))
		requireWaitedUntil(t, creates, creates[0].At.Add(createReset*time.Second).Truncate(time.Second))
	})
}
