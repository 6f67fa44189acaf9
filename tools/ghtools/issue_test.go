package ghtools_test

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

const issueArgs = `{"title":"Add tests for package cache","body":"The review found no tests for cache/.","labels":["tests"]}`

func TestCreateIssueFilesOneIssueWithItsMarker(t *testing.T) {
	f := newFakeGitHub(t)
	out, err := ghtools.NewCreateIssue(f.access()).Execute(context.Background(), approvedCall(t, api.ToolCreateIssue, issueArgs, "run-1:6"))
	require.NoError(t, err)

	require.Len(t, f.issuesNow(), 8)
	is := f.issuesNow()[7]
	require.Equal(t, "Add tests for package cache", is.GetTitle())
	require.Equal(t, ghapi.MarkedBody("The review found no tests for cache/.", "run-1:6"), is.GetBody())
	require.Len(t, is.Labels, 1)
	require.Equal(t, "tests", is.Labels[0].GetName())

	requireMade(t, out, "number", 8, is.GetHTMLURL())

	q, err := url.ParseQuery(f.query(opListIssues))
	require.NoError(t, err)
	require.Equal(t, botLogin, q.Get("creator"), "the look reads only the bot's issues")
	require.Equal(t, "all", q.Get("state"), "a closed issue still proves the operation")
	require.Equal(t, "created", q.Get("sort"))
	require.Equal(t, "desc", q.Get("direction"))
}

// An issue without labels leaves them out of its request: GitHub answers
// a null one 422 ("nil is not an array"), and so does the fake.
func TestCreateIssueWithoutBodyOrLabels(t *testing.T) {
	f := newFakeGitHub(t)
	action := ghtools.NewCreateIssue(f.access())
	call := approvedCall(t, api.ToolCreateIssue, `{"title":"Follow up"}`, "run-1:6")
	require.Equal(t, "New issue in acme/widgets\nTitle: \"Follow up\"\nLabels: none\n\n", call.Approved)
	_, err := action.Execute(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, api.OperationMarker("run-1:6"), strings.TrimSpace(f.issuesNow()[7].GetBody()))
	require.Empty(t, f.issuesNow()[7].Labels)

	rec, err := action.Reconcile(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, api.ReconcileFound, rec.Outcome, "an empty approved body is still proven by the marker alone")
}

func TestCreateIssueAfterALostResponseFindsItsIssueAndFilesNothing(t *testing.T) {
	testLostResponse(t, lostResponse{newAction: ghtools.NewCreateIssue, tool: api.ToolCreateIssue, args: issueArgs, key: "run-1:6",
		write: opCreateIssue, externalID: "8",
		before: func(f *fakeGitHub) { f.setPageSize(1) },
		between: func(t *testing.T, f *fakeGitHub) {
			// Other issues the bot files meanwhile come before it, newest first.
			f.addIssue(botLogin, "Unrelated", "another run's issue")
			f.addIssue(botLogin, "Unrelated too", "")
		}})
}

func TestCreateIssueReconcile(t *testing.T) {
	marked := ghapi.MarkedBody("The review found no tests for cache/.", "run-1:6")
	testReconcile(t, ghtools.NewCreateIssue, api.ToolCreateIssue, issueArgs, "run-1:6", opCreateIssue, []reconcileCase{
		{name: "nothing filed", outcome: api.ReconcileNotCreated,
			setup: func(f *fakeGitHub) { f.addIssue(botLogin, "Add tests for package cache", "no marker") }},
		{name: "ours", outcome: api.ReconcileFound, externalID: "9",
			setup: func(f *fakeGitHub) {
				f.addIssue(botLogin, "Older", "")
				f.addIssue(botLogin, "  Add tests for package cache ", marked)
			}},
		{name: "look-alikes: another author, another title, another body", outcome: api.ReconcileNotCreated, ignoredFrom: []int64{10, 9},
			setup: func(f *fakeGitHub) {
				f.addIssue("mallory", "Add tests for package cache", marked)
				f.addIssue(botLogin, "Add tests for package cache, and more", marked)
				f.addIssue(botLogin, "Add tests for package cache", ghapi.MarkedBody("Other text.", "run-1:6"))
			}},
		{name: "a pull request by the bot is not an issue", outcome: api.ReconcileNotCreated,
			setup: func(f *fakeGitHub) {
				f.addPullRequest(botLogin, "Add tests for package cache", marked)
			}},
		{name: "403", outcome: api.ReconcileCannotTell, reason: "refused by the test",
			setup: func(f *fakeGitHub) {
				f.addIssue(botLogin, "Add tests for package cache", marked)
				f.refuseWith(opListIssues, 403)
			}},
		{name: "more of the bot's issues than the look reads", outcome: api.ReconcileCannotTell, reason: ghapi.ErrProofSearchIncomplete.Error(),
			setup: func(f *fakeGitHub) {
				f.setPageSize(1)
				f.addIssue(botLogin, "Add tests for package cache", marked)
				for range 10 {
					f.addIssue(botLogin, "later", "")
				}
			}},
	})
}

func TestCreateIssueThatCannotFinishLookingFilesNothing(t *testing.T) {
	f := newFakeGitHub(t)
	f.setPageSize(1)
	for range 11 {
		f.addIssue(botLogin, "older", "")
	}
	_, err := ghtools.NewCreateIssue(f.access()).Execute(context.Background(), approvedCall(t, api.ToolCreateIssue, issueArgs, "run-1:6"))
	require.ErrorIs(t, err, ghapi.ErrProofSearchIncomplete)
	require.Empty(t, outerType(err), "the outcome is unknown: the run reconciles, and a person decides")
	require.Zero(t, f.count(opCreateIssue))
}

func TestCreateIssueRefusals(t *testing.T) {
	marker := api.OperationMarker("run-1:2")
	for _, args := range []string{
		`{"title":"T","body":"` + jsonEscape(marker) + `"}`,
		`{"title":"T ` + jsonEscape(marker) + `"}`,
		`{"title":"T","body":"<!--\n agent-operation:run-1:6 -->"}`,
		`{"title":"   "}`,
	} {
		t.Run(args, func(t *testing.T) {
			f := newFakeGitHub(t)
			action := ghtools.NewCreateIssue(f.access())
			call := tools.Call{Args: json.RawMessage(args), Target: pr, OperationKey: "run-1:6"}
			_, err := action.Preview(call)
			require.Error(t, err)
			require.Contains(t, refusal(t, api.ToolCreateIssue, args), err.Error(), "the model is told why")
			requireRefused(t, action, call)
			require.Zero(t, f.total(), "nothing reached GitHub")
		})
	}
}

func TestCreateIssuePreviewShowsEveryArgumentUnambiguously(t *testing.T) {
	action := ghtools.NewCreateIssue(nil)
	preview := previewOf(t, action)
	require.Equal(t, "New issue in acme/widgets\nTitle: \"Add tests for package cache\"\nLabels: \"tests\"\n\nThe review found no tests for cache/.", preview(issueArgs))
	pairs := [][2]string{
		{`{"title":"T\nLabels: \"x\""}`, `{"title":"T","labels":["x"]}`},
		{`{"title":"T"}`, `{"title":"T","labels":[]}`},
		{`{"title":"T","labels":["none"]}`, `{"title":"T"}`},
		{`{"title":"T","body":"\nLabels: \"x\""}`, `{"title":"T","labels":["x"]}`},
		{`{"title":"T","body":"a"}`, `{"title":"T","body":"a "}`},
	}
	for _, p := range pairs {
		require.NotEqual(t, preview(p[0]), preview(p[1]), "%s\nvs\n%s", p[0], p[1])
	}
	requireTouches(t, action, "acme/widgets (new issue)")
}

func TestCreateIssueSchemaRefusesBadCalls(t *testing.T) {
	for _, args := range []string{
		`{}`,
		`{"title":""}`,
		`{"title":"` + strings.Repeat("t", 257) + `"}`,
		`{"title":"T","body":"` + strings.Repeat("b", 65001) + `"}`,
		`{"title":"T","labels":["a","b","c","d","e","f","g","h","i","j","k"]}`,
		`{"title":"T","labels":"bug"}`,
		`{"title":"T","assignees":["mallory"]}`,
		`{"title":7}`,
	} {
		require.NotEmpty(t, refusal(t, api.ToolCreateIssue, args), api.TruncateUTF8(args, 80))
	}
	require.Empty(t, refusal(t, api.ToolCreateIssue, issueArgs))
	require.Empty(t, refusal(t, api.ToolCreateIssue, `{"title":"`+strings.Repeat("é", 256)+`"}`), "the limit counts characters, not bytes")
}
