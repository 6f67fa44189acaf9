package ghtools_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

const reviewArgs = `{"body":"Two things to fix.","event":"REQUEST_CHANGES","comments":[
	{"path":"main.go","line":12,"side":"RIGHT","body":"Leftover debug print."},
	{"path":"old.go","line":3,"side":"LEFT","body":"Why was this removed?"},
	{"path":"util.go","line":40,"body":"TODO left in."}]}`

func TestCreateReviewPostsOneReviewWithItsMarkerAndInlineComments(t *testing.T) {
	f := newFakeGitHub(t)
	call := approvedCall(t, api.ToolCreatePullRequestReview, reviewArgs, "run-1:4")
	out, err := ghtools.NewCreateReview(f.access()).Execute(context.Background(), call)
	require.NoError(t, err)

	require.Len(t, f.reviewsNow(), 1)
	rv := f.reviewsNow()[0]
	require.Equal(t, ghapi.MarkedBody("Two things to fix.", "run-1:4"), rv.GetBody())
	require.Equal(t, "CHANGES_REQUESTED", rv.GetState())
	comments := f.commentsOf(rv.GetID())
	require.Len(t, comments, 3)
	require.Equal(t, "main.go", comments[0].GetPath())
	require.Equal(t, 12, comments[0].GetLine())
	require.Equal(t, "RIGHT", comments[0].GetSide())
	require.Equal(t, "LEFT", comments[1].GetSide())
	require.Nil(t, comments[2].Side, "a side the model left out is left to GitHub")
	for _, c := range comments {
		require.False(t, ghapi.CarriesOperationMarker(c.GetBody()), "only the review body carries the marker")
	}

	requireMade(t, out, "id", 1001, rv.GetHTMLURL())
	require.Equal(t, 1, f.count(opListReviews), "the attempt looked for its proof before it posted")
}

func TestCreateReviewAfterALostResponseFindsItsReviewAndPostsNothing(t *testing.T) {
	testLostResponse(t, lostResponse{newAction: ghtools.NewCreateReview, tool: api.ToolCreatePullRequestReview, args: reviewArgs, key: "run-1:4",
		write: opCreateReview, externalID: "1001",
		before: func(f *fakeGitHub) {
			f.setPageSize(2)
			f.addReview(1, "alice", "Looks fine to me.")
			f.addReview(2, "mallory", ghapi.MarkedBody("Two things to fix.", "run-1:4"))
		},
		between: func(t *testing.T, f *fakeGitHub) {
			require.Len(t, f.reviewsNow(), 3, "GitHub made the review before the answer was lost")
		},
		after: func(t *testing.T, out api.ToolOutput) {
			require.Len(t, out.Ignored, 1, "mallory's copy of the marked body is a look-alike")
			require.Equal(t, int64(2), out.Ignored[0].CommentID)
		}})
}

func TestCreateReviewReconcile(t *testing.T) {
	marked := ghapi.MarkedBody("Two things to fix.", "run-1:4")
	testReconcile(t, ghtools.NewCreateReview, api.ToolCreatePullRequestReview, reviewArgs, "run-1:4", opCreateReview, []reconcileCase{
		{name: "nothing posted", outcome: api.ReconcileNotCreated,
			setup: func(f *fakeGitHub) { f.addReview(1, "alice", "LGTM") }},
		{name: "ours is on the third page", outcome: api.ReconcileFound, externalID: "9",
			setup: func(f *fakeGitHub) {
				f.setPageSize(1)
				f.addReview(1, "alice", "LGTM")
				f.addReview(2, "bob", "nit")
				f.addReview(9, botLogin, marked)
			}},
		{name: "the bot's login in another case is still the bot", outcome: api.ReconcileFound, externalID: "9",
			setup: func(f *fakeGitHub) { f.addReview(9, "AgentRun-Bot", marked) }},
		{name: "look-alikes by another author and with another body", outcome: api.ReconcileNotCreated, ignoredFrom: []int64{3, 4},
			setup: func(f *fakeGitHub) {
				f.addReview(3, "mallory", marked)
				f.addReview(4, botLogin, ghapi.MarkedBody("Something else entirely.", "run-1:4"))
				f.addReview(5, botLogin, ghapi.MarkedBody("Two things to fix.", "run-1:40"))
			}},
		{name: "found among look-alikes", outcome: api.ReconcileFound, externalID: "6", ignoredFrom: []int64{3},
			setup: func(f *fakeGitHub) {
				f.addReview(3, "mallory", marked)
				f.addReview(6, botLogin, "Two things to fix.\r\n\r\n"+api.OperationMarker("run-1:4")+"\n")
			}},
		{name: "403 on the listing", outcome: api.ReconcileCannotTell, reason: "refused by the test",
			setup: func(f *fakeGitHub) { f.addReview(9, botLogin, marked); f.refuseWith(opListReviews, 403) }},
		{name: "404 on the listing", outcome: api.ReconcileCannotTell, reason: "refused by the test",
			setup: func(f *fakeGitHub) { f.refuseWith(opListReviews, 404) }},
	})
}

func TestCreateReviewReconcileRetriesAServerErrorRatherThanAnswer(t *testing.T) {
	f := newFakeGitHub(t)
	f.refuseWith(opListReviews, 500)
	call := approvedCall(t, api.ToolCreatePullRequestReview, reviewArgs, "run-1:4")
	_, err := ghtools.NewCreateReview(f.access()).Reconcile(context.Background(), call)
	require.Error(t, err, "a 500 is neither an answer nor a refusal to let us look")
}

func TestCreateReviewRefusals(t *testing.T) {
	marker := api.OperationMarker("run-1:3")
	cases := []struct {
		name, args string
		tamper     func(c *tools.Call)
	}{
		{name: "marker in the body", args: `{"body":"ok ` + jsonEscape(marker) + `","event":"COMMENT"}`},
		{name: "marker in another spelling", args: `{"body":"ok <!--AGENT-operation : x-->","event":"COMMENT"}`},
		{name: "marker in an inline comment", args: `{"body":"ok","event":"COMMENT","comments":[{"path":"a.go","line":1,"body":"` + jsonEscape(marker) + `"}]}`},
		{name: "blank body", args: `{"body":"  \n ","event":"COMMENT"}`},
		{name: "args unlike the approved ones", args: `{"body":"ok","event":"COMMENT"}`,
			tamper: func(c *tools.Call) { c.Args = json.RawMessage(`{"body":"other","event":"COMMENT"}`) }},
		{name: "args outside the schema", args: `{"body":"ok","event":"COMMENT"}`,
			tamper: func(c *tools.Call) { c.Args = json.RawMessage(`{"body":"ok","event":"APPROVE"}`); c.Approved = "" }},
		{name: "no operationKey", args: `{"body":"ok","event":"COMMENT"}`,
			tamper: func(c *tools.Call) { c.OperationKey = "" }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			action := ghtools.NewCreateReview(f.access())
			call := tools.Call{Args: json.RawMessage(tc.args), Target: pr, OperationKey: "run-1:3"}
			if tc.tamper == nil {
				_, err := action.Preview(call)
				require.Error(t, err, "the workflow refuses it before anyone is asked")
				require.Contains(t, refusal(t, api.ToolCreatePullRequestReview, tc.args), err.Error(), "the model is told why")
			} else {
				var err error
				call.Approved, err = action.Preview(call)
				require.NoError(t, err)
				tc.tamper(&call)
			}
			requireRefused(t, action, call)
			require.Zero(t, f.total(), "nothing reached GitHub")
		})
	}
}

func TestCreateReviewWriteErrors(t *testing.T) {
	cases := []struct {
		name   string
		setup  func(f *fakeGitHub)
		want   string
		writes int
	}{
		{name: "422 on the post proves nothing happened", want: api.ErrTypeToolRejected, writes: 1,
			setup: func(f *fakeGitHub) { f.refuseWith(opCreateReview, 422) }},
		{name: "403 on the look first proves nothing about an earlier attempt", want: "", writes: 0,
			setup: func(f *fakeGitHub) { f.refuseWith(opListReviews, 403) }},
		{name: "429 on the post is a rate limit", want: api.ErrTypeRateLimited, writes: 1,
			setup: func(f *fakeGitHub) { f.refuseWith(opCreateReview, 429) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			tc.setup(f)
			call := approvedCall(t, api.ToolCreatePullRequestReview, reviewArgs, "run-1:4")
			_, err := ghtools.NewCreateReview(f.access()).Execute(context.Background(), call)
			require.Error(t, err)
			require.Equal(t, tc.want, outerType(err), "%v", err)
			require.Equal(t, tc.writes, f.count(opCreateReview))
			require.Empty(t, f.reviewsNow())
		})
	}
}

func TestCreateReviewPreviewShowsEveryArgumentUnambiguously(t *testing.T) {
	preview := previewOf(t, ghtools.NewCreateReview(nil))
	require.Equal(t, "Review (REQUEST_CHANGES) on acme/widgets#7, with 3 inline comments:\nTwo things to fix.\n\n"+
		"Inline comments:\n"+
		"- \"main.go\":12 (RIGHT): \"Leftover debug print.\"\n"+
		"- \"old.go\":3 (LEFT): \"Why was this removed?\"\n"+
		"- \"util.go\":40 (RIGHT, by default): \"TODO left in.\"", preview(reviewArgs))

	pairs := [][2]string{
		{`{"body":"A\n\nInline comments:\n- \"a.go\":1 (RIGHT): \"b\"","event":"COMMENT"}`,
			`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"side":"RIGHT","body":"b"}]}`},
		{`{"body":"A","event":"COMMENT"}`, `{"body":"A","event":"REQUEST_CHANGES"}`},
		{`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"body":"b"}]}`,
			`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"side":"RIGHT","body":"b"}]}`},
		{`{"body":"A","event":"COMMENT","comments":[{"path":"a.go:1 (RIGHT): \"x","line":2,"body":"b"}]}`,
			`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"side":"RIGHT","body":"x\":2 (RIGHT): b"}]}`},
		{`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"body":"b\n- \"c.go\":2 (LEFT): \"d\""}]}`,
			`{"body":"A","event":"COMMENT","comments":[{"path":"a.go","line":1,"body":"b"},{"path":"c.go","line":2,"side":"LEFT","body":"d"}]}`},
	}
	for _, p := range pairs {
		require.NotEqual(t, preview(p[0]), preview(p[1]), "%s\nvs\n%s", p[0], p[1])
	}
}

func TestCreateReviewSchemaRefusesBadCalls(t *testing.T) {
	many := `{"path":"a.go","line":1,"body":"b"}`
	for i := 0; i < 50; i++ {
		many += `,{"path":"a.go","line":1,"body":"b"}`
	}
	for _, args := range []string{
		`{"event":"COMMENT"}`,
		`{"body":"x"}`,
		`{"body":"","event":"COMMENT"}`,
		`{"body":"x","event":"APPROVE"}`,
		`{"body":"x","event":"COMMENT","extra":1}`,
		`{"body":"x","event":"COMMENT","comments":[{"line":1,"body":"b"}]}`,
		`{"body":"x","event":"COMMENT","comments":[{"path":"a.go","line":0,"body":"b"}]}`,
		`{"body":"x","event":"COMMENT","comments":[{"path":"a.go","line":1.5,"body":"b"}]}`,
		`{"body":"x","event":"COMMENT","comments":[{"path":"a.go","line":1,"side":"MIDDLE","body":"b"}]}`,
		`{"body":"x","event":"COMMENT","comments":[{"path":"a.go","line":1,"body":"b","position":3}]}`,
		`{"body":"x","event":"COMMENT","comments":[` + many + `]}`,
		`{"body":"x","event":"COMMENT","pullNumber":8}`,
	} {
		require.NotEmpty(t, refusal(t, api.ToolCreatePullRequestReview, args), args)
	}
	require.Empty(t, refusal(t, api.ToolCreatePullRequestReview, reviewArgs))
}

// jsonEscape is s as it reads inside a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func TestMarkerActionsWhenTheWorkerMayNotLookOrPost(t *testing.T) {
	notAllowed := tools.Rejected("acme/widgets is not in AGENT_ALLOWED_REPOS", nil)
	badToken := temporal.NewNonRetryableApplicationError("GET /user: 401 Bad credentials", api.ErrTypeGitHubRejected, nil)
	cases := []struct {
		name        string
		set         func(a *testAccess)
		executeType string
	}{
		{name: "repository not allowed", set: func(a *testAccess) { a.clientErr = notAllowed }, executeType: api.ErrTypeToolRejected},
		// A token that stopped working cannot prove that an earlier attempt
		// with it did nothing: the outcome is unknown.
		{name: "identity unreadable", set: func(a *testAccess) { a.loginErr = badToken }, executeType: ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeGitHub(t)
			acc := f.access()
			tc.set(&acc)
			actions := map[string]tools.Action{api.ToolCreatePullRequestReview: ghtools.NewCreateReview(acc), api.ToolCreateIssue: ghtools.NewCreateIssue(acc)}
			args := map[string]string{api.ToolCreatePullRequestReview: reviewArgs, api.ToolCreateIssue: issueArgs}
			for name, action := range actions {
				call := approvedCall(t, name, args[name], "run-1:4")
				_, err := action.Execute(context.Background(), call)
				require.Error(t, err)
				require.Equal(t, tc.executeType, outerType(err), "%s: %v", name, err)
				rec, err := action.Reconcile(context.Background(), call)
				require.NoError(t, err)
				require.Equal(t, api.ReconcileCannotTell, rec.Outcome, name)
				require.NotEmpty(t, rec.Reason)
			}
			require.Zero(t, f.total(), "nothing reached GitHub")
		})
	}
}

// What the model is told names the part it got wrong, and a review without
// inline comments says nothing of them.
func TestCreateReviewNamesTheInlineCommentItRefusesAndOmitsNoneFromItsPreview(t *testing.T) {
	action := ghtools.NewCreateReview(nil)
	marker := api.OperationMarker("run-1:3")
	_, err := action.Preview(tools.Call{Target: pr, Args: json.RawMessage(`{"body":"ok","event":"COMMENT","comments":[` +
		`{"path":"a.go","line":1,"body":"fine"},{"path":"a.go","line":2,"body":"` + jsonEscape(marker) + `"}]}`)})
	require.ErrorContains(t, err, "inline comment 2")

	preview := previewOf(t, action)(`{"body":"Fine.","event":"COMMENT"}`)
	require.True(t, strings.HasPrefix(preview, "Review (COMMENT) on acme/widgets#7:"), preview)
	require.NotContains(t, preview, "inline comment")
}

// A run on pull request #1 is a run on a pull request; one on #0 names none.
func TestTheActionsOnAPullRequestTakeTheFirstAndRefuseNone(t *testing.T) {
	for _, action := range []tools.Action{ghtools.NewCreateReview(nil), ghtools.NewAddLabels(nil)} {
		first := api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}
		touches, err := action.Touches(tools.Call{Target: first})
		require.NoError(t, err)
		require.Contains(t, touches, "acme/widgets#1")
		_, err = action.Touches(tools.Call{Target: api.Target{Owner: "acme", Repo: "widgets"}})
		require.ErrorContains(t, err, "names no pull request")
	}
}
