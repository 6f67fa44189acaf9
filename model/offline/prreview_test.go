package offline

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// proposeInlineReview plays an inline review up to its proposal.
func proposeInlineReview(t *testing.T, user string, fx pullRequestFixture) (*dialogue, api.ToolCall, reviewArgs) {
	t.Helper()
	d := triageDialogue(t, user, reviewTools...)
	d.readPullRequest(fx)
	proposal := d.checkedNext()
	require.Empty(t, proposal.Final)
	require.Len(t, proposal.ToolCalls, 1)
	call := proposal.ToolCalls[0]
	require.Equal(t, "call_5_create_pull_request_review", call.ID)
	var args reviewArgs
	require.NoError(t, json.Unmarshal(call.Arguments, &args))
	return d, call, args
}

func TestInlineReviewPostsTheCommentBodyWithCommentsOnFlaggedLines(t *testing.T) {
	const user = "Review pull request acme/widgets#7.\nGoal: find leftovers"
	fx := loadFixture(t, "findings")
	_, commentBody := newDialogue(t, user).fetchAndPropose(fx)

	_, _, args := proposeInlineReview(t, user, fx)
	require.Equal(t, commentBody, args.Body, "the summary is the comment variant's body")
	require.Equal(t, "COMMENT", args.Event)
	require.Equal(t, []inlineComment{
		{"cache/cache.go", 14, "RIGHT", "New `TODO` marker; resolve it or track it in an issue."},
		{"cache/cache.go", 18, "RIGHT", "Leftover debug output (`fmt.Println(`); remove it before merging."},
		{"cache/config.go", 14, "RIGHT", "Looks like an AWS access key ID committed to the repository; remove it and rotate it, as it stays in the git history."},
		{"web/app.js", 41, "RIGHT", "Leftover debug output (`console.log(`); remove it before merging."},
		{"web/app.js", 42, "RIGHT", "Leftover debug output (`debugger;`); remove it before merging."},
	}, args.Comments, "at most five, in file order then line order")
	require.NotContains(t, string(mustJSON(t, args)), "AKIAIOSFODNN7EXAMPLE")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

func TestInlineReviewReportsEachOutcome(t *testing.T) {
	cases := []struct {
		name, result, want string
	}{
		{"posted", `{"reviewId":80,"htmlUrl":"https://github.com/acme/widgets/pull/7#pullrequestreview-80"}`,
			"Posted the review of acme/widgets#7 (12 findings, 5 inline comments) as review 80 (https://github.com/acme/widgets/pull/7#pullrequestreview-80)."},
		{"found by reconciliation", `{"id":80,"alreadyExisted":true}`,
			"The review of acme/widgets#7 (12 findings, 5 inline comments) was already posted as review 80; nothing new was created."},
		{"rejected", "rejected by alice: too many comments",
			`The review of acme/widgets#7 (12 findings, 5 inline comments) was not posted: "rejected by alice: too many comments".`},
		{"expired", "expired: nobody approved before 2026-06-01T10:00:00Z",
			`The review of acme/widgets#7 (12 findings, 5 inline comments) was not posted: "expired: nobody approved before 2026-06-01T10:00:00Z".`},
		{"failed", "failed: 422 Unprocessable Entity: pull_request_review_thread.line must be part of the diff",
			`The review of acme/widgets#7 (12 findings, 5 inline comments) was not posted: "failed: 422 Unprocessable Entity: pull_request_review_thread.line must be part of the diff".`},
		{"an id that is not plain", `{"id":"80 <b>","url":"http://evil.example"}`,
			"Posted the review of acme/widgets#7 (12 findings, 5 inline comments)."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, call, _ := proposeInlineReview(t, "Review pull request acme/widgets#7.", loadFixture(t, "findings"))
			d.answer(call, tc.result)
			last := d.checkedNext()
			require.Empty(t, last.ToolCalls)
			require.Equal(t, tc.want, last.Final)
		})
	}
}

func TestInlineReviewOfACleanPullRequestHasNoInlineComments(t *testing.T) {
	_, _, args := proposeInlineReview(t, "Review pull request acme/widgets#8.", loadFixture(t, "clean"))
	require.Contains(t, args.Body, "No findings")
	require.Empty(t, args.Comments)
}

// Every inline comment must sit on a line the patch adds, or GitHub refuses
// the whole review; the patches here are what a hostile author can push.
func TestInlineCommentsLandOnlyOnAddedLines(t *testing.T) {
	todos := func(n int) string {
		lines := []string{fmt.Sprintf("@@ -0,0 +1,%d @@", n)}
		for i := range n {
			lines = append(lines, fmt.Sprintf("+// TODO %d", i))
		}
		return strings.Join(lines, "\n")
	}
	cases := []struct {
		name  string
		files []api.PullRequestFile
		want  []at
	}{
		{"removed and context lines are not commented", []api.PullRequestFile{{Filename: "a.go",
			Patch: "@@ -3,3 +3,3 @@\n // TODO kept\n-// TODO removed\n+// fine\n fmt.Println(\"debug\")"}}, nil},
		{"a hunk that claims line 0", []api.PullRequestFile{{Filename: "a.go",
			Patch: "@@ -0,0 +0,2 @@\n+// TODO zero\n+// TODO one"}}, []at{{FindingTodo, "a.go", 1}}},
		{"hunks that repeat lines", []api.PullRequestFile{{Filename: "a.go",
			Patch: "@@ -1,0 +1,1 @@\n+// TODO first\n@@ -1,0 +1,1 @@\n+// TODO again"}}, []at{{FindingTodo, "a.go", 1}}},
		{"text outside any hunk", []api.PullRequestFile{{Filename: "a.go",
			Patch: "+// TODO before a hunk\n@@ -1,1 +1,1 @@\n-x\n+y"}}, nil},
		{"a file with no name", []api.PullRequestFile{{Filename: "", Patch: todos(1)}}, nil},
		{"more flagged lines than the cap", []api.PullRequestFile{{Filename: "a.go", Patch: todos(4)}, {Filename: "b.go", Patch: todos(4)}},
			[]at{{FindingTodo, "a.go", 1}, {FindingTodo, "a.go", 2}, {FindingTodo, "a.go", 3}, {FindingTodo, "a.go", 4}, {FindingTodo, "b.go", 1}}},
		{"a very long line", []api.PullRequestFile{{Filename: "a.go",
			Patch: "@@ -1,1 +1,2 @@\n x\n+" + strings.Repeat("é", longLineRunes+1)}}, []at{{"long_line", "a.go", 2}}},
		{"a line just short enough", []api.PullRequestFile{{Filename: "a.go",
			Patch: "@@ -1,1 +1,2 @@\n x\n+" + strings.Repeat("é", longLineRunes)}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			comments := inlineComments(tc.files)
			var got []at
			for _, c := range comments {
				kind := FindingTodo
				if strings.HasPrefix(c.Body, "Very long line") {
					kind = "long_line"
				}
				got = append(got, at{kind, c.Path, c.Line})
				require.Equal(t, "RIGHT", c.Side)
				requireAddedLine(t, tc.files, c)
			}
			require.Equal(t, tc.want, got)
		})
	}
}

func requireAddedLine(t *testing.T, files []api.PullRequestFile, c inlineComment) {
	t.Helper()
	for _, f := range files {
		if f.Filename != c.Path {
			continue
		}
		for _, l := range addedLines(f.Patch) {
			if l.Number == c.Line {
				return
			}
		}
	}
	t.Fatalf("comment on %s line %d, which the patch does not add", c.Path, c.Line)
}

func TestInlineCommentsSayEverythingFoundOnTheirLine(t *testing.T) {
	files := []api.PullRequestFile{{Filename: "a.go",
		Patch: "@@ -0,0 +1,1 @@\n+fmt.Println(\"debug\", token := \"ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A\") // TODO " + strings.Repeat("x", longLineRunes)}}
	comments := inlineComments(files)
	require.Len(t, comments, 1)
	require.Equal(t, "Looks like a GitHub token committed to the repository; remove it and rotate it, as it stays in the git history.\n\n"+
		"New `TODO` marker; resolve it or track it in an issue.\n\n"+
		"Leftover debug output (`fmt.Println(`); remove it before merging.\n\n"+
		fmt.Sprintf("Very long line (%d characters); consider wrapping it.", len([]rune(strings.TrimPrefix(strings.Split(files[0].Patch, "\n")[1], "+")))),
		comments[0].Body)
	require.NotContains(t, comments[0].Body, "ghp_")
}

func TestCommentToolWinsWhenBothReviewToolsAreOffered(t *testing.T) {
	d := triageDialogue(t, "Review pull request acme/widgets#7.", slices.Concat(reviewTools, []string{api.ToolCreateIssueComment, api.ToolAddLabels})...)
	d.readPullRequest(loadFixture(t, "clean"))
	decision := d.checkedNext()
	require.Len(t, decision.ToolCalls, 1)
	require.Equal(t, api.ToolCreateIssueComment, decision.ToolCalls[0].Name)
}
