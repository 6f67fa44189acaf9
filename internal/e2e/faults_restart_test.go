package e2e

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

func TestFaultServerRestartLosesNothingAndDuplicatesNothing(t *testing.T) {
	// A restart needs the server's state on disk: the tuned SQLite file.
	s := NewStack(t, builder.Binaries(t), testkit.ServerOptions{DBFile: filepath.Join(t.TempDir(), "temporal.db")})
	s.StartWorker(t)
	c := s.Client()
	const posting = "fault-restart-posting"
	waiting := []string{"fault-restart-waiting-1", "fault-restart-waiting-2", "fault-restart-waiting-3"}
	all := append([]string{posting}, waiting...)
	actions := map[string]string{}
	for _, runID := range all {
		MustStartRun(t, c, s.Queue, runID, ReviewInput(toolTimeout))
	}
	for _, runID := range all {
		actions[runID] = WaitForStatus(t, c, runID, api.RunWaitingForUser, runTimeout).PendingAction.ID
	}
	// The sandbox creates the comment and holds its answer through the restart.
	s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDelay, DelayMs: 3000})
	require.NoError(t, Approve(context.Background(), c, posting, actions[posting], "alice", "restart-"+posting))
	Eventually(t, runTimeout, "the comment to be created with its answer held", func() (struct{}, bool, string) {
		creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)
		return struct{}{}, len(creates) == 1, strconv.Itoa(len(creates)) + " create_comment requests"
	})

	s.Server.Restart()

	for _, runID := range waiting {
		// The client reconnects on its own; a signal sent too early is retried.
		Eventually(t, runTimeout, "the approval of "+runID+" to be accepted", func() (struct{}, bool, string) {
			err := Approve(context.Background(), c, runID, actions[runID], "alice", "restart-"+runID)
			return struct{}{}, err == nil, errorText(err)
		})
	}
	for _, runID := range all {
		requireOnePostedComment(t, s, runID)
	}
	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, len(all), posted.Total())
	require.Zero(t, posted.Duplicates())
	for _, runID := range all {
		snap, err := Snapshot(context.Background(), c, runID)
		require.NoError(t, err)
		require.Len(t, snap.Actions, 1, Describe(snap))
		require.Equal(t, api.ActionApproved, snap.Actions[0].State)
		if runID == posting {
			// Which path settled it depends on how long the restart took: the
			// held answer, or a timeout and reconciliation.
			t.Logf("posting run's comment step after the restart: %s", CommentStep(snap).SafeOutput)
		}
	}
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
