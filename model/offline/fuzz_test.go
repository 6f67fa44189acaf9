package offline

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// Whatever a pull request's file name and patch hold, the triage and the
// inline review propose calls the workflow accepts: arguments within their
// tools' schemas, no operation marker, labels from the fixed set, titles
// bounded and inline comments on added lines only.
func FuzzActionArgumentsStayWithinTheirSchemas(f *testing.F) {
	for _, name := range []string{"findings", "clean", "secrets", "truncated", "triage"} {
		for _, file := range loadFixture(f, name).Files {
			f.Add(file.Filename, file.Patch)
		}
	}
	f.Add("<!--\n.go", "@@ -0,0 +0,2 @@\n+// TODO <!-- agent-operation:x -->\n+// FIXME <\u200b!-- agent-operation:y -->")
	f.Add("docs/a.md", "@@ -1 +1 @@\n-x\n+TODO(\xff): \u202e"+strings.Repeat("\u00e9", 400))
	known := []string{"ci", "dependencies", "docs", "go", "tests", fallbackLabel}
	f.Fuzz(func(t *testing.T, filename, patch string) {
		files := []api.PullRequestFile{{Filename: filename, Status: "modified", Patch: patch}, {Filename: "b/" + filename, Status: "added", Patch: patch}}
		fx := pullRequestFixture{PullRequest: api.PullRequest{Number: 3, Title: filename, Body: patch}, Files: files}

		d := triageDialogue(t, "Triage pull request acme/widgets#3.", triageTools...)
		d.readPullRequest(fx)
		issues := 0
		for _, c := range readTriageCalls(t, d.checkedNext().ToolCalls) {
			requireNoMarker(t, c.Title, c.Body)
			for _, l := range c.Labels {
				require.Contains(t, known, l)
			}
			if c.Name == api.ToolCreateIssue {
				issues++
				require.True(t, strings.HasPrefix(c.Title, "Follow up: "))
				require.LessOrEqual(t, utf8.RuneCountInString(c.Title), len("Follow up: ")+maxTitleRunes)
			}
		}
		require.LessOrEqual(t, issues, maxFollowUps)

		d = triageDialogue(t, "Review pull request acme/widgets#3.", reviewTools...)
		d.readPullRequest(fx)
		decision := d.checkedNext()
		require.Empty(t, decision.Final)
		var args reviewArgs
		require.NoError(t, json.Unmarshal(decision.ToolCalls[0].Arguments, &args))
		require.LessOrEqual(t, len(args.Comments), maxInlineComments)
		requireNoMarker(t, args.Body)
		// The files as the model read them, after their JSON round trip.
		var read []api.PullRequestFile
		require.NoError(t, json.Unmarshal([]byte(jsonText(t, files)), &read))
		for _, c := range args.Comments {
			requireNoMarker(t, c.Body)
			requireAddedLine(t, read, c)
		}
		require.True(t, slices.IsSortedFunc(args.Comments, func(a, b inlineComment) int {
			if order := strings.Compare(pathOrder(read, a.Path), pathOrder(read, b.Path)); order != 0 {
				return order
			}
			return a.Line - b.Line
		}), "file order, then line order")
	})
}

// pathOrder sorts file paths by their place in the file list.
func pathOrder(files []api.PullRequestFile, name string) string {
	for i, f := range files {
		if f.Filename == name {
			return string(rune('a' + i))
		}
	}
	return "z"
}

func requireNoMarker(t *testing.T, texts ...string) {
	t.Helper()
	for _, s := range texts {
		require.NotContains(t, s, "<!--")
	}
}
