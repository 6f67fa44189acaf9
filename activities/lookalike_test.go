package activities_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// postAs writes a comment on the demo pull request as user, the way a person
// on GitHub would.
func (s sandbox) postAs(t *testing.T, user, body string) ghsandbox.Comment {
	t.Helper()
	c, err := s.PostAs(ghsandbox.CommentAs{Owner: demoPR.Owner, Repo: demoPR.Repo, Number: demoPR.PullNumber, User: user, Body: body})
	require.NoError(t, err)
	return c
}

func marked(body, operationKey string) string {
	return body + "\n\n" + api.OperationMarker(operationKey)
}

func TestLookAlikeByThePullRequestAuthorDoesNotStopOurComment(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	lookAlike := sb.postAs(t, "carol", "thanks! "+api.OperationMarker("run-1:3"))

	res, err := acts.CreateIssueComment(context.Background(),
		api.CreateCommentInput{Target: demoPR, Body: "Found a TODO.", OperationKey: "run-1:3"})

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
	require.Equal(t, marked("Found a TODO.", "run-1:3"), comments[1].Body)
}

func TestLookAlikeWithTheExactBodyByAnotherUserIsReconciledAsNotCreated(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	forged := sb.postAs(t, "mallory", marked("Review", "run-2:5"))

	res, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-2:5", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileNotCreated, res.Outcome)
	require.Zero(t, res.CommentID)
	require.Equal(t, []api.IgnoredComment{{
		CommentID: forged.ID, Author: "mallory",
		Why: "carries the marker but was written by mallory, not by this worker's GitHub identity agentrun[bot]",
	}}, res.Ignored)
}

func TestEditedBotCommentDoesNotProveTheOperation(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	edited := sb.postAs(t, sb.BotLogin(), marked("Review, edited by a maintainer", "run-3:2"))

	found, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-3:2", Body: "Review"})
	require.NoError(t, err)
	require.Equal(t, api.ReconcileNotCreated, found.Outcome)
	require.Equal(t, []api.IgnoredComment{{
		CommentID: edited.ID, Author: "agentrun[bot]",
		Why: "carries the marker but its body is not the approved body (edited, or another text)",
	}}, found.Ignored)

	created, err := acts.CreateIssueComment(context.Background(),
		api.CreateCommentInput{Target: demoPR, Body: "Review", OperationKey: "run-3:2"})
	require.NoError(t, err)
	require.False(t, created.AlreadyExisted)
	require.NotEqual(t, edited.ID, created.CommentID)
	require.Len(t, created.Ignored, 1)
}

func TestOurOwnCommentIsFoundWhateverTheCaseOfTheLoginGitHubShows(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	ours := sb.postAs(t, "AgentRun[bot]", marked("Review", "run-4:1"))
	acts.BotLogin = "AGENTRUN[BOT]"

	res, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-4:1", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileFound, res.Outcome)
	require.Equal(t, ours.ID, res.CommentID)
	require.Empty(t, res.Ignored)
}

// Keys R:5 and R:50 share a prefix. A marker matched without its closing
// " -->" would make step 50's comment a candidate for step 5 (and report it
// as a look-alike); the exact marker leaves it out entirely.
func TestStepFiveIsNotConfusedWithStepFiftyOfTheSameRun(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	fifty, err := acts.CreateIssueComment(context.Background(),
		api.CreateCommentInput{Target: demoPR, Body: "Review", OperationKey: "run-5:50"})
	require.NoError(t, err)

	found, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-5:5", Body: "Review"})
	require.NoError(t, err)
	require.Equal(t, api.FindCommentResult{Outcome: api.ReconcileNotCreated}, found)

	five, err := acts.CreateIssueComment(context.Background(),
		api.CreateCommentInput{Target: demoPR, Body: "Review", OperationKey: "run-5:5"})
	require.NoError(t, err)
	require.False(t, five.AlreadyExisted)
	require.Empty(t, five.Ignored)
	require.NotEqual(t, fifty.CommentID, five.CommentID)
	require.Len(t, sb.Comments("acme", "widgets", 1), 2)
}

func TestIgnoredLookAlikesAreCappedAtTen(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	for i := range 15 {
		sb.postAs(t, fmt.Sprintf("spammer%d", i), "me too "+api.OperationMarker("run-6:1"))
	}

	res, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-6:1", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileNotCreated, res.Outcome)
	require.Len(t, res.Ignored, api.MaxIgnoredComments)
	require.Equal(t, "spammer0", res.Ignored[0].Author)
}

func TestReconcileWithoutTheApprovedBodyIsRefusedRatherThanGuessed(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	_, err := acts.FindCommentByOperationKey(context.Background(),
		api.FindCommentInput{Target: demoPR, OperationKey: "run-7:1"})

	appErr := applicationError(t, err)
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Message(), "the approved body")
	require.Empty(t, sb.Requests())
}
