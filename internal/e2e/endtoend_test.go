package e2e

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// starterStatus runs `starter status RUN --json`.
func starterStatus(t *testing.T, s *Stack, runID string) (api.RunSnapshot, string, bool) {
	res, err := RunCommand(context.Background(), s.Bins.Starter, s.StarterEnv(), "status", runID, "--json")
	require.NoError(t, err)
	if res.ExitCode != 0 {
		return api.RunSnapshot{}, res.Stderr, false
	}
	var snap api.RunSnapshot
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &snap), res.Stdout)
	return snap, Describe(snap), true
}

// startWithStarter starts the demo review with `starter start --json` and
// is the run ID it prints.
func startWithStarter(ctx context.Context, t *testing.T, s *Stack) string {
	t.Helper()
	started, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(), "start", "--repo", PullRepo, "--pr", strconv.Itoa(PullNum), "--json")
	require.NoError(t, err)
	require.Equal(t, 0, started.ExitCode, started.Stderr)
	var start struct {
		RunID string `json:"runId"`
	}
	require.NoError(t, json.Unmarshal([]byte(started.Stdout), &start), started.Stdout)
	require.NotEmpty(t, start.RunID)
	return start.RunID
}

func waitForStarterStatus(t *testing.T, s *Stack, runID string, status api.RunStatus) api.RunSnapshot {
	return Eventually(t, time.Minute, "starter status to say "+string(status), func() (api.RunSnapshot, bool, string) {
		snap, seen, ok := starterStatus(t, s, runID)
		return snap, ok && snap.Run.Status == status, seen
	})
}

func TestEndToEndApproveViaStarterPostsOneComment(t *testing.T) {
	s := newStack(t)
	s.StartWorker(t)
	ctx := context.Background()

	runID := startWithStarter(ctx, t, s)

	waiting := waitForStarterStatus(t, s, runID, api.RunWaitingForUser)
	require.NotNil(t, waiting.PendingAction)
	require.Empty(t, s.Sandbox.PostedComments(t), "nothing is posted before approval")

	approved, err := RunCommand(ctx, s.Bins.Starter, s.StarterEnv(),
		"approve", runID, "--action", waiting.PendingAction.ID, "--as", "alice")
	require.NoError(t, err)
	require.Equal(t, 0, approved.ExitCode, approved.Stderr)

	done := waitForStarterStatus(t, s, runID, api.RunCompleted)
	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, 1, posted.Total())
	require.Len(t, posted[runID], 1)
	step := CommentStep(done)
	require.NotNil(t, step)
	require.Equal(t, api.StepSucceeded, step.Status)
	require.Equal(t, strconv.FormatInt(posted[runID][0].GetID(), 10), step.ExternalResourceID)
	require.Equal(t, api.ActionApproved, done.PendingAction.State)
	require.Equal(t, "alice", done.PendingAction.DecidedBy)
}
