package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
)

// RequireOnePostedComment checks a run's outcome from the sandbox and the
// run query alone: the run completed, exactly one comment carries its
// marker, and its comment step succeeded pointing at that comment.
func RequireOnePostedComment(t *testing.T, c client.Client, sandbox *Sandbox, runID string, timeout time.Duration) api.RunSnapshot {
	t.Helper()
	res := WaitForResult(t, c, runID, timeout)
	require.Equal(t, api.RunCompleted, res.Status)
	snap := WaitForStatus(t, c, runID, api.RunCompleted, timeout)
	posted := sandbox.PostedComments(t)
	require.Len(t, posted[runID], 1, "comments carrying run %s's marker", runID)
	step := CommentStep(snap)
	require.NotNil(t, step, Describe(snap))
	require.Equal(t, api.StepSucceeded, step.Status, Describe(snap))
	require.Equal(t, strconv.FormatInt(posted[runID][0].GetID(), 10), step.ExternalResourceID)
	return snap
}
