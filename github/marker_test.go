package github_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

var demoPR = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

// postAs writes a comment on the demo pull request as user, the way a person
// on GitHub would.
func postAs(t *testing.T, sb *ghsandbox.Server, user, body string) ghsandbox.Comment {
	t.Helper()
	c, err := sb.PostAs(ghsandbox.CommentAs{Owner: demoPR.Owner, Repo: demoPR.Repo, Number: demoPR.PullNumber, User: user, Body: body})
	require.NoError(t, err)
	return c
}

func listRequests(sb *ghsandbox.Server) int {
	n := 0
	for _, r := range sb.Requests() {
		if r.Op == ghsandbox.OpListComments {
			n++
		}
	}
	return n
}

func find(t *testing.T, gh *gogithub.Client, operationKey, approvedBody, author string) (*gogithub.IssueComment, []api.IgnoredComment) {
	t.Helper()
	found, ignored, err := github.FindOperationComment(context.Background(), gh, demoPR, operationKey, approvedBody, author)
	require.NoError(t, err)
	return found, ignored
}

func TestMarkedBodyIsTheBodyABlankLineAndTheMarker(t *testing.T) {
	require.Equal(t, "Review\n\n<!-- agent-operation:run-1:5 -->", github.MarkedBody("Review", "run-1:5"))
}

func TestCarriesOperationMarkerSeesMarkersInAnyCaseAndSpacing(t *testing.T) {
	for body, want := range map[string]bool{
		api.OperationMarker("run-1:1"):                true,
		"<!--agent-operation:x-->":                    true,
		"text <!--\n  AGENT-OPERATION : x \n--> more": true,
		"<!-- unrelated --> <!-- agent-operation:x":   true,
		"<!-- agent - operation: x -->":               true,
		"an agent-operation: in plain text":           false,
		"`agent-operation:x` in code":                 false,
		"<!-- a note --> agent-operation:x":           false,
		"&lt;!-- agent-operation:x --&gt;":            false,
		"plain review":                                false,
	} {
		require.Equal(t, want, github.CarriesOperationMarker(body), "%q", body)
	}
}

// An empty HTML comment closes at once: what follows it is plain text, and a
// review that quotes the marker word after one is no forged proof.
func TestMarkerWordAfterAnEmptyHTMLCommentIsPlainText(t *testing.T) {
	for body, want := range map[string]bool{
		"<!----> agent-operation:x":             false,
		"<!----> <!-- agent-operation:x -->":    true,
		"<!-- --> then agent-operation:x later": false,
	} {
		require.Equal(t, want, github.CarriesOperationMarker(body), "%q", body)
	}
}

// requireProof checks that looking operationKey up finds ours, and that no
// other comment had to be passed over.
func requireProof(t *testing.T, gh *gogithub.Client, ours ghsandbox.Comment, operationKey, approvedBody, author string) {
	t.Helper()
	found, ignored := find(t, gh, operationKey, approvedBody, author)
	require.NotNil(t, found)
	require.Equal(t, ours.ID, found.GetID())
	require.Empty(t, ignored)
}

// requireNoProof checks that looking operationKey up finds nothing, and
// passes over exactly the one marked comment, saying why.
func requireNoProof(t *testing.T, gh *gogithub.Client, operationKey, approvedBody, author string, passedOver api.IgnoredComment) {
	t.Helper()
	found, ignored := find(t, gh, operationKey, approvedBody, author)
	require.Nil(t, found)
	require.Equal(t, []api.IgnoredComment{passedOver}, ignored)
}

func TestOurCommentWithTheApprovedBodyProvesTheOperation(t *testing.T) {
	sb, gh := sandboxClient(t)
	postAs(t, sb, "carol", "unrelated")
	ours := postAs(t, sb, sb.BotLogin(), github.MarkedBody("Review", "run-1:1"))

	requireProof(t, gh, ours, "run-1:1", "Review", sb.BotLogin())
}

// GitHub may hand a body back with CRLF line endings and blank around it;
// only those are forgiven, every other byte must be the approved body's.
func TestOurCommentAsGitHubHandsItBackWithCRLFStillProvesTheOperation(t *testing.T) {
	sb, gh := sandboxClient(t)
	ours := postAs(t, sb, sb.BotLogin(), "\n Line one\r\nline two\r\n\r\n"+api.OperationMarker("run-1:2")+"\r\n")

	requireProof(t, gh, ours, "run-1:2", "Line one\nline two", sb.BotLogin())
}

func TestLookAlikeWithTheExactBodyByAnotherUserIsNoProof(t *testing.T) {
	sb, gh := sandboxClient(t)
	forged := postAs(t, sb, "mallory", github.MarkedBody("Review", "run-2:5"))

	requireNoProof(t, gh, "run-2:5", "Review", "agentrun[bot]", api.IgnoredComment{
		ID: strconv.FormatInt(forged.ID, 10), CommentID: forged.ID, Author: "mallory",
		Why: "carries the marker but was written by mallory, not by this worker's GitHub identity agentrun[bot]",
	})
}

func TestEditedBotCommentDoesNotProveTheOperation(t *testing.T) {
	sb, gh := sandboxClient(t)
	edited := postAs(t, sb, sb.BotLogin(), github.MarkedBody("Review, edited by a maintainer", "run-3:2"))

	requireNoProof(t, gh, "run-3:2", "Review", sb.BotLogin(), api.IgnoredComment{
		ID: strconv.FormatInt(edited.ID, 10), CommentID: edited.ID, Author: "agentrun[bot]",
		Why: "carries the marker but its body is not the approved body (edited, or another text)",
	})
}

func TestOurOwnCommentIsFoundWhateverTheCaseOfTheLoginGitHubShows(t *testing.T) {
	sb, gh := sandboxClient(t)
	ours := postAs(t, sb, "AgentRun[bot]", github.MarkedBody("Review", "run-4:1"))

	requireProof(t, gh, ours, "run-4:1", "Review", "AGENTRUN[BOT]")
}

// Keys R:5 and R:50 share a prefix. A marker matched without its closing
// " -->" would make step 50's comment a candidate for step 5 (and report it
// as a look-alike); the exact marker leaves it out entirely.
func TestStepFiveIsNotConfusedWithStepFiftyOfTheSameRun(t *testing.T) {
	sb, gh := sandboxClient(t)
	postAs(t, sb, sb.BotLogin(), github.MarkedBody("Review", "run-5:50"))

	found, ignored := find(t, gh, "run-5:5", "Review", sb.BotLogin())

	require.Nil(t, found)
	require.Empty(t, ignored)
}

func TestIgnoredLookAlikesAreCappedAtTen(t *testing.T) {
	sb, gh := sandboxClient(t)
	for i := range 15 {
		postAs(t, sb, fmt.Sprintf("spammer%d", i), "me too "+api.OperationMarker("run-6:1"))
	}

	found, ignored := find(t, gh, "run-6:1", "Review", sb.BotLogin())

	require.Nil(t, found)
	require.Len(t, ignored, api.MaxIgnoredComments)
	require.Equal(t, "spammer0", ignored[0].Author)
	require.Equal(t, "spammer9", ignored[9].Author)
}

// The proof may sit on any page; "not there" is only an answer once every
// page has been read.
func TestOurCommentIsFoundOnALaterPageAndAbsenceOnlyAfterTheLastOne(t *testing.T) {
	sb, gh := sandboxClient(t)
	for i := range 230 {
		body := fmt.Sprintf("comment %d", i)
		if i == 150 {
			body = github.MarkedBody("Review", "run-7:2")
		}
		user := "bob"
		if i == 150 {
			user = sb.BotLogin()
		}
		postAs(t, sb, user, body)
	}

	found, _ := find(t, gh, "run-7:2", "Review", sb.BotLogin())
	require.NotNil(t, found)
	require.Equal(t, github.MarkedBody("Review", "run-7:2"), found.GetBody())
	require.Equal(t, 2, listRequests(sb), "found on page 2, page 3 is not read")

	missing, _ := find(t, gh, "run-7:3", "Review", sb.BotLogin())
	require.Nil(t, missing)
	require.Equal(t, 2+3, listRequests(sb), "230 comments are three pages of 100")
}

func TestListingThatFailsNamesThePageAndKeepsGitHubsError(t *testing.T) {
	sb, gh := sandboxClient(t)
	for i := range 120 {
		postAs(t, sb, "carol", fmt.Sprintf("thanks %d %s", i, api.OperationMarker("run-8:1")))
	}
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: http.StatusBadGateway, After: 1}))

	found, ignored, err := github.FindOperationComment(context.Background(), gh, demoPR, "run-8:1", "Review", sb.BotLogin())

	require.Nil(t, found)
	require.Len(t, ignored, api.MaxIgnoredComments, "what page 1 showed is still reported")
	require.True(t, strings.HasPrefix(err.Error(), "list comments (page 2): "), err.Error())
	var resp *gogithub.ErrorResponse
	require.ErrorAs(t, err, &resp)
	require.Equal(t, http.StatusBadGateway, resp.Response.StatusCode)
}
