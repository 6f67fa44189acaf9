package ghtools_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

var demoPR = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

type sandbox struct {
	*ghsandbox.Server
	url string
	gh  *gogithub.Client
}

// newSandbox serves fixture over real HTTP and points a real go-github
// client, made the way the worker makes it, at it: an access with no
// allowlist and no bot login.
func newSandbox(t *testing.T, fixture ghsandbox.Fixture) (sandbox, *ghapi.Access) {
	t.Helper()
	sb := ghsandbox.New(fixture)
	url, gh := testkit.ServeSandbox(t, sb)
	s := sandbox{Server: sb, url: url, gh: gh}
	return s, s.access(nil, "")
}

// access is the GitHub access on the sandbox, limited to allowed, posting
// as botLogin ("" asks GET /user).
func (s sandbox) access(allowed ghapi.RepoAllowlist, botLogin string) *ghapi.Access {
	return ghapi.NewAccess(s.gh, allowed, botLogin)
}

// commentsViaAPI reads every comment through the sandbox's public endpoint,
// as GitHub's own UI would show them.
func (s sandbox) commentsViaAPI(t *testing.T, target api.Target) []map[string]any {
	t.Helper()
	var all []map[string]any
	for page := 1; ; page++ {
		resp, err := http.Get(fmt.Sprintf("%s/repos/%s/%s/issues/%d/comments?per_page=100&page=%d",
			s.url, target.Owner, target.Repo, target.PullNumber, page))
		require.NoError(t, err)
		var batch []map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&batch))
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		all = append(all, batch...)
		if !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
			return all
		}
	}
}

func (s sandbox) countRequests(op string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Op == op {
			n++
		}
	}
	return n
}

func (s sandbox) addFault(t *testing.T, f ghsandbox.Fault) {
	t.Helper()
	require.NoError(t, s.AddFault(f))
}

// earlierReview is the body of the comment fixtureWithComments marks.
const earlierReview = "an earlier review"

// fixtureWithComments is acme/widgets#1 with n comments by other people;
// markedAt >= 0 makes comment markedAt the bot's own earlierReview for
// operationKey, exactly as the comment tool would have posted it.
func fixtureWithComments(n, markedAt int, operationKey string) ghsandbox.Fixture {
	f := ghsandbox.DefaultFixture()
	pull := &f.Repos[0].Pulls[0]
	for i := range n {
		user, body := "bob", fmt.Sprintf("comment %d", i)
		if i == markedAt {
			user, body = f.BotLogin, earlierReview+"\n\n"+api.OperationMarker(operationKey)
		}
		pull.Comments = append(pull.Comments, ghsandbox.FixtureComment{User: user, Body: body, CreatedAt: time.Now()})
	}
	return f
}

func TestGetPullRequestReadsTheDemoPullRequest(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	pr, err := readPullRequest(acts, demoPR)

	require.NoError(t, err)
	require.Equal(t, api.PullRequest{
		Number: 1, Title: "Cache widgets in memory", Body: pr.Body, Author: "carol", State: "open",
		HeadRef: "feature/widget-cache", BaseRef: "main", HeadSHA: "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42",
		Additions: 32, Deletions: 6, ChangedFiles: 3, HTMLURL: sb.url + "/acme/widgets/pull/1",
	}, pr)
	require.NotEmpty(t, pr.Body)
}

func TestListPullRequestFilesReadsEveryPageAndTruncatesHugePatches(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	pull := &f.Repos[0].Pulls[0]
	huge := "@@ -0,0 +1,3000 @@\n" + strings.Repeat("+\tfmt.Println(\"a line of a generated file\")\n", 3000)
	pull.Files = []ghsandbox.FixtureFile{{Filename: "gen/huge.go", Status: "added", Patch: huge}}
	for i := range 249 {
		pull.Files = append(pull.Files, ghsandbox.FixtureFile{
			Filename: fmt.Sprintf("pkg/f%03d.go", i), Status: "modified", Patch: "@@ -1 +1 @@\n-old\n+new",
		})
	}
	sb, acts := newSandbox(t, f)

	files, err := listFiles(acts, demoPR)

	require.NoError(t, err)
	require.Len(t, files, 250)
	require.Equal(t, 3, sb.countRequests(ghsandbox.OpListFiles), "100 + 100 + 50")
	require.Equal(t, "pkg/f248.go", files[249].Filename)
	require.Equal(t, api.PullRequestFile{Filename: "pkg/f000.go", Status: "modified", Additions: 1, Deletions: 1, Patch: "@@ -1 +1 @@\n-old\n+new"}, files[1])

	big := files[0]
	sum := sha256.Sum256([]byte(huge))
	require.True(t, big.PatchTruncated)
	require.Equal(t, len(huge), big.PatchBytes)
	require.Equal(t, hex.EncodeToString(sum[:]), big.PatchSHA256)
	require.LessOrEqual(t, len(big.Patch), 16<<10)
	require.True(t, strings.HasPrefix(huge, big.Patch))
	require.True(t, strings.HasSuffix(big.Patch, "\n"), "cut at a line end")
	require.Equal(t, 3000, big.Additions)
}

func TestTruncatedPatchWithoutLineBreaksStaysValidUTF8(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	patch := "@@ -0,0 +1 @@\n+" + strings.Repeat("é€", 6000)
	f.Repos[0].Pulls[0].Files = []ghsandbox.FixtureFile{{Filename: "i18n.txt", Status: "added", Patch: patch}}
	_, acts := newSandbox(t, f)

	files, err := listFiles(acts, demoPR)

	require.NoError(t, err)
	require.True(t, files[0].PatchTruncated)
	require.LessOrEqual(t, len(files[0].Patch), 16<<10)
	require.True(t, utf8.ValidString(files[0].Patch))
	require.True(t, strings.HasPrefix(patch, files[0].Patch))
}

func TestCommentToolPostsOnceWithTheMarker(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	in := comment{Target: demoPR, Body: "Found a TODO.", OperationKey: "run-1/step-3"}

	first, err := createComment(acts, in)
	require.NoError(t, err)
	second, err := createComment(acts, in)
	require.NoError(t, err)

	require.False(t, first.AlreadyExisted)
	require.NotZero(t, first.CommentID)
	require.Equal(t, fmt.Sprintf("%s/acme/widgets/pull/1#issuecomment-%d", sb.url, first.CommentID), first.HTMLURL)
	require.Equal(t, api.CommentResult{CommentID: first.CommentID, HTMLURL: first.HTMLURL, AlreadyExisted: true}, second)

	comments := sb.commentsViaAPI(t, demoPR)
	require.Len(t, comments, 1)
	require.Equal(t, "Found a TODO.\n\n<!-- agent-operation:run-1/step-3 -->", comments[0]["body"])
	require.Equal(t, 1, sb.countRequests(ghsandbox.OpCreateComment))
}

func TestCommentToolWithAnotherKeyPostsAnotherComment(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	a, err := createComment(acts, comment{Target: demoPR, Body: "x", OperationKey: "k1"})
	require.NoError(t, err)
	b, err := createComment(acts, comment{Target: demoPR, Body: "x", OperationKey: "k2"})
	require.NoError(t, err)

	require.NotEqual(t, a.CommentID, b.CommentID)
	require.Len(t, sb.commentsViaAPI(t, demoPR), 2)
}

func TestCommentToolFindsTheMarkerBeyondTheFirstPage(t *testing.T) {
	sb, acts := newSandbox(t, fixtureWithComments(150, 130, "run-7/step-2"))
	marked := sb.Comments("acme", "widgets", 1)[130]

	res, err := createComment(acts, comment{Target: demoPR, Body: earlierReview, OperationKey: "run-7/step-2"})

	require.NoError(t, err)
	require.True(t, res.AlreadyExisted)
	require.Equal(t, marked.ID, res.CommentID)
	require.Equal(t, 2, sb.countRequests(ghsandbox.OpListComments))
	require.Zero(t, sb.countRequests(ghsandbox.OpCreateComment))
	require.Len(t, sb.commentsViaAPI(t, demoPR), 150)
}

func TestLostCreateResponseIsReconciledAsFoundAndNotPostedTwice(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse})
	in := comment{Target: demoPR, Body: "Review", OperationKey: "run-2/step-5"}

	_, err := createComment(acts, in)
	standalone.RequirePlainRetryable(t, err)
	posted := sb.Comments("acme", "widgets", 1)
	require.Len(t, posted, 1)

	found, err := findComment(acts, comment{Target: demoPR, OperationKey: "run-2/step-5", Body: "Review"})
	require.NoError(t, err)
	require.Equal(t, api.ReconcileFound, found.Outcome)
	require.Equal(t, posted[0].ID, found.CommentID)
	require.NotEmpty(t, found.HTMLURL)

	retried, err := createComment(acts, in)
	require.NoError(t, err)
	require.True(t, retried.AlreadyExisted)
	require.Equal(t, posted[0].ID, retried.CommentID)
	require.Len(t, sb.commentsViaAPI(t, demoPR), 1)
}

func TestFindCommentIsNotCreatedOnlyAfterReadingEveryPage(t *testing.T) {
	sb, acts := newSandbox(t, fixtureWithComments(230, -1, ""))

	res, err := findComment(acts, comment{Target: demoPR, OperationKey: "run-9/step-1", Body: "Review"})

	require.NoError(t, err)
	require.Equal(t, reconciled{Outcome: api.ReconcileNotCreated}, res)
	require.Equal(t, 3, sb.countRequests(ghsandbox.OpListComments))
}

func TestTooLongCommentIsRejectedWithGitHubsMessage(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	_, err := createComment(acts, comment{
		Target: demoPR, Body: strings.Repeat("a", 70000), OperationKey: "k",
	})

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t,
		"create comment on acme/widgets#1: 422 Validation Failed [IssueComment.body: body is too long (maximum is 65536 characters)]",
		appErr.Message())
	require.Empty(t, sb.Comments("acme", "widgets", 1))
}

func TestValidationFailureFromGitHubIsRejected(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 422})

	_, err := createComment(acts, comment{Target: demoPR, Body: "x", OperationKey: "k"})

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Message(), "create comment on acme/widgets#1: 422 Validation Failed")
}

// The worker previews the call again from its arguments: a blank body has
// no preview, so it cannot be the approved one.
func TestBlankCommentIsRefusedAndPostsNothing(t *testing.T) {
	requireBodyRefused(t, " \n", "body is blank", "body is empty")
}

func TestUnknownPullRequestIsRejected(t *testing.T) {
	_, acts := newSandbox(t, ghsandbox.DefaultFixture())

	_, err := readPullRequest(acts, api.Target{Owner: "acme", Repo: "widgets", PullNumber: 404})

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t, "get pull request acme/widgets#404: 404 Not Found", appErr.Message())
}

// The details must survive the trip through Temporal's failure converter,
// since that is how the workflow receives them.
func TestRateLimitDetailsReachTheWorkflowSide(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 403, RetryAfter: 5})
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()

	err := createCommentInActivity(env, acts, comment{Target: demoPR, Body: "x", OperationKey: "k"})

	details := standalone.RequireRateLimited(t, err, "secondary")
	require.Equal(t, int64(5), details.RetryAfterSeconds)
}

func TestFindCommentCannotTellWhenListingIsForbidden(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: 403})

	res, err := findComment(acts, comment{Target: demoPR, OperationKey: "k", Body: "x"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileCannotTell, res.Outcome)
	require.Contains(t, res.Reason, "403 Resource not accessible by integration")
}

func TestFindCommentCannotTellWhenThePullRequestIsGone(t *testing.T) {
	_, acts := newSandbox(t, ghsandbox.DefaultFixture())

	res, err := findComment(acts, comment{Target: api.Target{Owner: "acme", Repo: "gone", PullNumber: 1}, OperationKey: "k", Body: "x"})

	require.NoError(t, err)
	require.Equal(t, api.ReconcileCannotTell, res.Outcome)
	require.Contains(t, res.Reason, "404 Not Found")
}

func TestFindCommentRateLimitIsAnErrorNotAnAnswer(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: 403, RetryAfter: 2})

	_, err := findComment(acts, comment{Target: demoPR, OperationKey: "k", Body: "x"})

	standalone.RequireRateLimited(t, err, "secondary")
}

func TestServerErrorIsAPlainRetryableError(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: 500})

	_, err := readPullRequest(acts, demoPR)

	standalone.RequirePlainRetryable(t, err)
	require.Contains(t, err.Error(), "get pull request acme/widgets#1")
	require.Contains(t, err.Error(), "500")
}

func TestFindCommentServerErrorIsAPlainRetryableError(t *testing.T) {
	sb, acts := newSandbox(t, fixtureWithComments(120, -1, ""))
	// Page 1 only gets a harmless delay, so that the 502 lands on page 2: an
	// answer from half the comments would be a guess.
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeDelay, DelayMs: 1})
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: 502})

	_, err := findComment(acts, comment{Target: demoPR, OperationKey: "k", Body: "x"})

	standalone.RequirePlainRetryable(t, err)
	require.Contains(t, err.Error(), "page 2")
}

func TestNoGitHubClientIsAnError(t *testing.T) {
	_, err := readPullRequest(nil, demoPR)

	require.ErrorContains(t, err, "no GitHub client")
}
