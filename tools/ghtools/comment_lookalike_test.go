package ghtools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// postAs writes a comment on the demo pull request as user, the way a person
// on GitHub would.
func (s sandbox) postAs(t *testing.T, user, body string) ghsandbox.Comment {
	t.Helper()
	c, err := s.PostAs(ghsandbox.CommentAs{Owner: demoPR.Owner, Repo: demoPR.Repo, Number: demoPR.PullNumber, User: user, Body: body})
	require.NoError(t, err)
	return c
}

func TestLookAlikeByThePullRequestAuthorDoesNotStopOurComment(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	lookAlike := sb.postAs(t, "carol", "thanks! "+api.OperationMarker("run-1:3"))

	res, err := createComment(acts, comment{Target: demoPR, Body: "Found a TODO.", OperationKey: "run-1:3"})

	require.NoError(t, err)
	require.False(t, res.AlreadyExisted)
	require.NotEqual(t, lookAlike.ID, res.CommentID)
	require.Len(t, res.Ignored, 1)
	require.Equal(t, lookAlike.ID, res.Ignored[0].CommentID)
	require.Equal(t, "carol", res.Ignored[0].Author)
	require.Contains(t, res.Ignored[0].Why, "written by carol, not by this worker's GitHub identity agentrun[bot]")
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 2)
	require.Equal(t, "agentrun[bot]", comments[1].User)
	require.Equal(t, ghapi.MarkedBody("Found a TODO.", "run-1:3"), comments[1].Body)
}

func TestReconcileWithoutTheApprovedBodyIsRefusedRatherThanGuessed(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	_, err := findComment(acts, comment{Target: demoPR, OperationKey: "run-7:1"})

	appErr := standalone.ApplicationError(t, err)
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Message(), "the approved body")
	require.Empty(t, sb.Requests())
}
