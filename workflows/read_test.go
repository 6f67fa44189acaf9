package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// A read's first try is a local activity; only a try that failed goes to
// the server as an activity, so the happy path makes no round trip for it.
const (
	getPullActivity   = api.ActivityExecuteTool + ":" + api.ToolGetPullRequest
	listFilesActivity = api.ActivityExecuteTool + ":" + api.ToolListPullRequestFiles
)

func TestAReadThatSucceedsFirstIsNeverScheduledOnTheServer(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Empty(t, log.activitySummaries(getPullActivity), "its one try ran in the workflow's worker")
	require.Empty(t, log.activitySummaries(listFilesActivity))
	require.Equal(t, 1, log.attemptCount(getPullActivity))
	require.Equal(t, 1, log.attemptCount(listFilesActivity))
	snap := h.snapshot()
	for _, tool := range []string{api.ToolGetPullRequest, api.ToolListPullRequestFiles} {
		st := stepOfTool(t, snap, tool)
		require.Equal(t, api.StepSucceeded, st.Status)
		require.NotEmpty(t, st.SafeOutput, "%s keeps its step record", tool)
	}
	require.Equal(t, 1, h.markedComments())
	requireLegalHistory(t, h.events())
}

func TestAReadWhoseFirstTryFailsIsRetriedByTheServerOnTheSameBackoff(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: 502, Count: 3})
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	// Four tries: the local one, then the server's activity, 1 s, 2 s and
	// 4 s apart, as one activity of ten attempts would have been.
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, tryGaps(log, getPullActivity))
	require.Equal(t, []string{"Read get_pull_request of acme/widgets#1"}, log.activitySummaries(getPullActivity),
		"one activity carries the tries after the first")
	st := stepOfTool(t, h.snapshot(), api.ToolGetPullRequest)
	require.Equal(t, api.StepSucceeded, st.Status)
	var notes []string
	for _, ev := range h.events() {
		if ev.StepID == st.ID && strings.HasPrefix(ev.Detail, "try 1 failed: ") {
			notes = append(notes, ev.Detail)
		}
	}
	require.Len(t, notes, 1, "the first try's failure is one of the step's events")
	require.Contains(t, notes[0], "502")
	require.Equal(t, 1, h.markedComments())
	requireLegalHistory(t, h.events())
}

func TestAReadWhoseFirstTryIsRateLimitedWaitsForRetryAfterBeforeTheSecond(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: 429, RetryAfter: 7})
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, []time.Duration{7 * time.Second}, tryGaps(log, getPullActivity), "the local try's Retry-After holds")
	require.Equal(t, api.StepSucceeded, stepOfTool(t, h.snapshot(), api.ToolGetPullRequest).Status)
	require.Equal(t, 1, h.markedComments())
}

func TestAReadGitHubRefusesIsTriedOnceAndNeverScheduledOnTheServer(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	in := demoInput()
	in.PullNumber = 99
	h.runFailing(in, "could not read the input (get_pull_request)")

	require.Equal(t, 1, log.attemptCount(getPullActivity), "a 404 proves the read cannot succeed")
	require.Empty(t, log.activitySummaries(getPullActivity))
	require.Equal(t, api.StepFailed, stepOfTool(t, h.snapshot(), api.ToolGetPullRequest).Status)
}

// tryGaps are the times between consecutive tries of name, local or not.
func tryGaps(l *commandLog, name string) []time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	var (
		out  []time.Duration
		prev time.Time
	)
	for i, a := range l.attempts {
		if a.Name != name {
			continue
		}
		if !prev.IsZero() {
			out = append(out, a.At.Sub(prev))
		}
		prev = l.attempts[i].At
	}
	return out
}

func stepOfTool(t *testing.T, snap api.RunSnapshot, tool string) api.AgentStep {
	t.Helper()
	for _, st := range snap.Steps {
		if st.ToolName == tool {
			return st
		}
	}
	t.Fatalf("no step of %s in %d steps", tool, len(snap.Steps))
	return api.AgentStep{}
}
