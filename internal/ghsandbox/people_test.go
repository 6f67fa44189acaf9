package ghsandbox

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"
)

func TestGetUserAnswersTheFixturesBotWhichWritesTheAPIsComments(t *testing.T) {
	f := DefaultFixture()
	f.BotLogin = "reviewer-app[bot]"
	sb, srv := startSandbox(t, f)

	me := call(t, "GET", srv.URL+"/api/v3/user", "")
	created := call(t, "POST", srv.URL+"/repos/acme/widgets/issues/1/comments", `{"body":"Looks good"}`)

	require.Equal(t, http.StatusOK, me.status)
	user := decode[*github.User](t, me)
	require.Equal(t, "reviewer-app[bot]", user.GetLogin())
	require.Equal(t, "Bot", user.GetType())
	require.Equal(t, "reviewer-app[bot]", decode[*github.IssueComment](t, created).GetUser().GetLogin())
	require.Equal(t, OpGetUser, sb.Requests()[0].Op)
}

func TestGetUserTakesFaultsLikeAnyOtherOperation(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())
	require.NoError(t, sb.AddFault(Fault{Op: OpGetUser, Mode: ModeStatus, Status: http.StatusUnauthorized}))

	a := call(t, "GET", srv.URL+"/user", "")

	require.Equal(t, http.StatusUnauthorized, a.status)
	require.Equal(t, "Bad credentials", decode[ErrorBody](t, a).Message)
}

func TestPostingAsAPersonAnswers201WithTheCommentInGitHubsShape(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	a := call(t, "POST", srv.URL+ControlCommentsPath,
		`{"owner":"Acme","repo":"widgets","number":1,"user":"carol","body":"thanks! <!-- agent-operation:run-1:3 -->"}`)

	require.Equal(t, http.StatusCreated, a.status, string(a.body))
	c := decode[*github.IssueComment](t, a)
	require.Equal(t, "carol", c.GetUser().GetLogin())
	require.Equal(t, "thanks! <!-- agent-operation:run-1:3 -->", c.GetBody())
	require.Equal(t, fmt.Sprintf("%s/acme/widgets/pull/1#issuecomment-%d", srv.URL, c.GetID()), c.GetHTMLURL())
	listed := decode[[]*github.IssueComment](t, call(t, "GET", srv.URL+"/repos/acme/widgets/issues/1/comments", ""))
	require.Equal(t, c.GetID(), listed[0].GetID())
	require.Equal(t, "carol", listed[0].GetUser().GetLogin())
	require.Len(t, sb.Requests(), 1, "only the API call is logged, not the sandbox control call")
}

func TestPostingAsAPersonRefusesBadInputWith400SayingWhy(t *testing.T) {
	cases := map[string]struct{ body, says string }{
		"missing fields":   {`{"owner":"acme","repo":"widgets"}`, "missing or empty: number, user, body"},
		"blank body":       {`{"owner":"acme","repo":"widgets","number":1,"user":"carol","body":" "}`, "missing or empty: body"},
		"unknown repo":     {`{"owner":"acme","repo":"nope","number":1,"user":"carol","body":"hi"}`, "no pull request acme/nope#1"},
		"unknown pull":     {`{"owner":"acme","repo":"widgets","number":99,"user":"carol","body":"hi"}`, "no pull request acme/widgets#99"},
		"bad login":        {`{"owner":"acme","repo":"widgets","number":1,"user":"carol smith","body":"hi"}`, `user "carol smith" is not a GitHub login`},
		"unknown field":    {`{"owner":"acme","repo":"widgets","number":1,"user":"carol","body":"hi","author":"x"}`, `unknown field "author"`},
		"trailing data":    {`{"owner":"acme","repo":"widgets","number":1,"user":"carol","body":"hi"} {}`, "unexpected data after the JSON value"},
		"not JSON":         {`owner=acme`, "decode"},
		"number as string": {`{"owner":"acme","repo":"widgets","number":"1","user":"carol","body":"hi"}`, "decode"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			sb, srv := startSandbox(t, DefaultFixture())

			a := call(t, "POST", srv.URL+ControlCommentsPath, tc.body)

			require.Equal(t, http.StatusBadRequest, a.status)
			require.Contains(t, decode[map[string]string](t, a)["message"], tc.says)
			require.Empty(t, sb.Comments("acme", "widgets", 1))
		})
	}
}

func TestPostAsIsTheSameActionForTestsInTheProcess(t *testing.T) {
	sb, _ := startSandbox(t, DefaultFixture())

	c, err := sb.PostAs(CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: sb.BotLogin(), Body: "edited by hand"})
	require.NoError(t, err)
	_, err = sb.PostAs(CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: "-carol", Body: "x"})
	require.ErrorContains(t, err, "is not a GitHub login")

	require.Equal(t, []Comment{c}, sb.Comments("acme", "widgets", 1))
	require.Equal(t, "agentrun[bot]", c.User)
}

func TestPostAsOverHTTPReturnsTheNewCommentOrTheSandboxsComplaint(t *testing.T) {
	sb, srv := startSandbox(t, DefaultFixture())

	id, err := PostAsOverHTTP(context.Background(), srv.Client(), srv.URL+"/",
		CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: "carol", Body: "thanks!"})
	require.NoError(t, err)
	_, err = PostAsOverHTTP(context.Background(), srv.Client(), srv.URL,
		CommentAs{Owner: "acme", Repo: "widgets", Number: 7, User: "carol", Body: "thanks!"})

	require.ErrorContains(t, err, "400 Bad Request")
	require.ErrorContains(t, err, "no pull request acme/widgets#7")
	require.Equal(t, id, sb.Comments("acme", "widgets", 1)[0].ID)
}
