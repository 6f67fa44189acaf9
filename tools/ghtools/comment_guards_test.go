package ghtools_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestAllowlistRefusesEveryToolOnAnotherRepositoryBeforeAnyRequest(t *testing.T) {
	sb, _ := newSandbox(t, ghsandbox.DefaultFixture())
	acts := sb.access(ghapi.RepoAllowlist{"acme/widgets"}, "")
	elsewhere := api.Target{Owner: "acme", Repo: "gadgets", PullNumber: 1}

	_, errGet := readPullRequest(acts, elsewhere)
	_, errList := listFiles(acts, elsewhere)
	_, errCreate := createComment(acts, comment{Target: elsewhere, Body: "Review", OperationKey: "run-1:1"})
	_, errFind := findComment(acts, comment{Target: elsewhere, OperationKey: "run-1:1", Body: "Review"})

	for _, err := range []error{errGet, errList, errCreate, errFind} {
		appErr := standalone.ApplicationError(t, err)
		require.Equal(t, api.ErrTypeTargetNotAllowed, appErr.Type())
		require.True(t, appErr.NonRetryable())
		require.Contains(t, appErr.Message(), "acme/gadgets is not among this worker's allowed repositories (AGENT_ALLOWED_REPOS)")
	}
	require.Empty(t, sb.Requests(), "refused before any request")
}

func TestAllowlistComparesOwnerAndRepoIgnoringASCIICase(t *testing.T) {
	sb, _ := newSandbox(t, ghsandbox.DefaultFixture())
	list, err := ghapi.ParseRepoAllowlist("other/repo, ACME/Widgets")
	require.NoError(t, err)
	acts := sb.access(list, "")

	res, err := createComment(acts, comment{Target: api.Target{Owner: "Acme", Repo: "WIDGETS", PullNumber: 1}, Body: "Review", OperationKey: "run-1:2"})

	require.NoError(t, err)
	require.NotZero(t, res.CommentID)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
}

func TestParseRepoAllowlistRefusesWhatIsNotOwnerSlashRepo(t *testing.T) {
	for _, raw := range []string{"acme", "acme/", "/widgets", "acme/widgets/x", "acme/*", "acme/widgets,", " ", "acme /widgets x", "https://github.com/acme/widgets", "acme/.."} {
		t.Run(raw, func(t *testing.T) {
			_, err := ghapi.ParseRepoAllowlist(raw)

			require.Error(t, err)
		})
	}
	list, err := ghapi.ParseRepoAllowlist("")
	require.NoError(t, err)
	require.True(t, list.Allows(demoPR), "unset allows every repository")
}

func TestBodyCarryingAMarkerIsRefusedAndPostsNothing(t *testing.T) {
	requireBodyRefused(t, "LGTM\n<!--Agent-Operation: run-9:1 -->", "carries an operation marker", "agent-operation marker")
}

func TestActivitiesWithoutABotLoginAskGitHubWhoTheyAre(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	acc := ghapi.NewAccess(sb.gh, nil, "")
	require.NoError(t, acc.Identify(context.Background()))
	require.Equal(t, "agentrun[bot]", acc.Login())

	_, err := createComment(acts, comment{Target: demoPR, Body: "Review", OperationKey: "run-1:1"})
	require.NoError(t, err)
	require.Equal(t, 2, sb.countRequests(ghsandbox.OpGetUser))
}

func TestBotLoginOverridesGetUser(t *testing.T) {
	sb, _ := newSandbox(t, ghsandbox.DefaultFixture())
	acts := sb.access(nil, "reviewer-app[bot]")
	// The sandbox's token posts as agentrun[bot]: to a worker that says it is
	// someone else, that comment proves nothing.
	theirs := sb.postAs(t, sb.BotLogin(), ghapi.MarkedBody("Review", "run-1:1"))

	require.NoError(t, acts.Identify(context.Background()))
	require.Equal(t, "reviewer-app[bot]", acts.Login())
	res, err := findComment(acts, comment{Target: demoPR, OperationKey: "run-1:1", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileNotCreated, res.Outcome)
	require.Equal(t, theirs.ID, res.Ignored[0].CommentID)
	require.Zero(t, sb.countRequests(ghsandbox.OpGetUser))
}

func TestReconcileCannotTellWhenGitHubRefusesToSayWhoWeAre(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpGetUser, Mode: ghsandbox.ModeStatus, Status: 401})

	res, err := findComment(acts, comment{Target: demoPR, OperationKey: "run-1:1", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileCannotTell, res.Outcome)
	require.Contains(t, res.Reason, "GET /user")
	require.Zero(t, sb.countRequests(ghsandbox.OpListComments))
}

func TestCommentPostedUnderAnotherLoginThanTheIdentityIsLoggedAsAnError(t *testing.T) {
	sb, _ := newSandbox(t, ghsandbox.DefaultFixture())
	acts := sb.access(nil, "agentrun") // a typo for agentrun[bot]
	var logs bytes.Buffer
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	env := suite.NewTestActivityEnvironment()

	err := createCommentInActivity(env, acts, comment{Target: demoPR, Body: "Review", OperationKey: "run-1:1"})

	require.NoError(t, err)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
	require.Contains(t, logs.String(), "level=ERROR")
	require.Contains(t, logs.String(), "fix GITHUB_BOT_LOGIN")
	require.Contains(t, logs.String(), "postedAs=agentrun[bot] identity=agentrun")
}
