package offline

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// pullRequestFixture is one testdata file: what the two read tools return.
type pullRequestFixture struct {
	PullRequest api.PullRequest       `json:"pullRequest"`
	Files       []api.PullRequestFile `json:"files"`
}

func loadFixture(t testing.TB, name string) pullRequestFixture {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	require.NoError(t, err)
	var fx pullRequestFixture
	require.NoError(t, json.Unmarshal(raw, &fx))
	return fx
}

// at is a finding reduced to what a test compares: kind, place and detail.
type at struct {
	Kind FindingKind
	File string
	Line int
}

func places(findings []Finding) []at {
	out := make([]at, 0, len(findings))
	for _, f := range findings {
		out = append(out, at{f.Kind, f.File, f.Line})
	}
	return out
}

func TestReviewFindsEachKindAtItsNewFileLine(t *testing.T) {
	cases := []struct {
		fixture string
		want    []at
	}{
		{"findings", []at{
			{FindingTodo, "cache/cache.go", 14},
			{FindingDebugPrint, "cache/cache.go", 18},
			{FindingSecret, "cache/config.go", 14},
			{FindingDebugPrint, "web/app.js", 41},
			{FindingDebugPrint, "web/app.js", 42},
			{FindingTodo, "cmd/widgets/main.go", 24},
			{FindingDebugPrint, "cmd/widgets/main.go", 24},
			{FindingDebugPrint, "cmd/widgets/main.go", 25},
			{FindingTodo, "scripts/deploy.py", 2},
			{FindingDebugPrint, "scripts/deploy.py", 3},
			{FindingUntestedChange, "cache", 0},
			{FindingUntestedChange, "cmd/widgets", 0},
		}},
		{"clean", []at{}},
		{"secrets", []at{
			{FindingSecret, "deploy/prod.env", 2},
			{FindingSecret, "deploy/id_rsa", 1},
			{FindingSecret, "internal/ghclient/client.go", 9},
			{FindingSecret, "settings.py", 13},
			{FindingSecret, "config/app.yaml", 4},
		}},
		{"truncated", []at{
			{FindingTodo, "gen/schema.go", 5},
			{FindingTruncatedPatch, "gen/schema.go", 0},
			{FindingNoPatch, "assets/logo.png", 0},
			{FindingUntestedChange, "gen", 0},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.fixture, func(t *testing.T) {
			fx := loadFixture(t, tc.fixture)
			review, err := reviewFiles(context.Background(), fx.PullRequest, fx.Files)
			require.NoError(t, err)
			require.Equal(t, tc.want, places(review.Findings))
		})
	}
}

func TestFindingDetailsNameWhatWasFound(t *testing.T) {
	review, err := reviewFiles(context.Background(), api.PullRequest{}, loadFixture(t, "findings").Files)
	require.NoError(t, err)
	var details []string
	for _, f := range review.Findings {
		details = append(details, f.Detail)
	}
	require.Equal(t, []string{
		"TODO", "fmt.Println(", "an AWS access key ID",
		"console.log(", "debugger;",
		"XXX", "println(", `log.Printf("DEBUG`,
		"FIXME", "print(",
		"cache.go, config.go", "main.go",
	}, details)
}

func TestSecretKindsAreNamedAndLookAlikesPass(t *testing.T) {
	cases := []struct {
		line string
		want string
	}{
		{`AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE`, "an AWS access key ID"},
		{`-----BEGIN OPENSSH PRIVATE KEY-----`, "a private key"},
		{`-----BEGIN PGP PRIVATE KEY BLOCK-----`, "a private key"},
		{`token := "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"`, "a GitHub token"},
		{`password = 'correct-horse-battery'`, "a hard-coded password literal"},
		{`"apiKey": "0123456789abcdef"`, "a hard-coded apikey literal"},
		{`clientSecret: "s3cr3t-v4lu3-here"`, "a hard-coded secret literal"},
		{`password = "short"`, ""},
		{`password: "${DB_PASSWORD}"`, ""},
		{`tokenEnv := "GITHUB_TOKEN"`, ""},
		{`if token == "abcdefghijklmnop" {`, ""},
		{`password := os.Getenv("DB_PASSWORD")`, ""},
		{`-----BEGIN PUBLIC KEY-----`, ""},
		{`const keyPrefix = "AKIA"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			require.Equal(t, tc.want, secretKind(tc.line))
		})
	}
}

func TestDebugOutputIsFlaggedButUserOutputIsNot(t *testing.T) {
	cases := []struct {
		line string
		want string
	}{
		{`	fmt.Println("listening on", addr)`, ""},
		{`	fmt.Printf("debug: %v\n", x)`, "fmt.Printf("},
		{`	println(x)`, "println("},
		{`	System.out.println("DEBUG " + x);`, "System.out.println("},
		{`	System.out.println("Done.");`, ""},
		{`  console.debug(state);`, "console.debug("},
		{`	spew.Dump(cfg)`, "spew.Dump("},
		{`	log.Printf("DEBUG %v", x)`, `log.Printf("DEBUG`},
		{`	log.Printf("served %d requests", n)`, ""},
		{`    import pdb; pdb.set_trace()`, "pdb.set_trace()"},
		{`	breakpoint()`, "breakpoint()"},
		{`    puts "debug: #{x}"`, "puts"},
		{`    print("Saved", path)`, ""},
		{`	w.println("not the builtin")`, ""},
		{`	// debugger is attached by the IDE`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.line, func(t *testing.T) {
			require.Equal(t, tc.want, debugPrint(tc.line))
		})
	}
}

func TestAddedLinesFollowHunkHeaders(t *testing.T) {
	patch := strings.Join([]string{
		"@@ -1,3 +1,3 @@ package main",
		" a",
		"-b",
		"+B",
		" c",
		"@@ -10,4 +10,5 @@ func f() {",
		" x",
		"-y",
		"+++counter", // an added line that reads "++counter", not a file header
		"+z",
		"", // an empty context line whose leading space was stripped
		" w",
		"\\ No newline at end of file",
		"@@ -20 +21 @@",
		"-old",
		"+new",
	}, "\n")
	require.Equal(t, []addedLine{
		{Number: 2, Text: "B"},
		{Number: 11, Text: "++counter"},
		{Number: 12, Text: "z"},
		{Number: 21, Text: "new"},
	}, addedLines(patch))
}

func TestAddedLinesSkipFileHeadersAndGarbage(t *testing.T) {
	patch := "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -0,0 +1,2 @@\n+one\n+two\nnot a diff line\n+ignored"
	require.Equal(t, []addedLine{{1, "one"}, {2, "two"}}, addedLines(patch))
	require.Empty(t, addedLines("@@ malformed @@\n+x"))
	require.Empty(t, addedLines(""))
}

func TestLargeAdditionsAreFlaggedPerFileAndForThePullRequest(t *testing.T) {
	bigFile := generatedFile("store/big.go", 450)
	review, err := reviewFiles(context.Background(), api.PullRequest{}, []api.PullRequestFile{
		bigFile, generatedFile("store/big_test.go", 300), generatedFile("store/more_test.go", 300),
	})
	require.NoError(t, err)
	require.Equal(t, []at{{FindingLargeFile, "store/big.go", 0}, {FindingLargePR, "", 0}}, places(review.Findings))
	require.Equal(t, "450", review.Findings[0].Detail)
	require.Equal(t, "1050", review.Findings[1].Detail)

	// Under both thresholds nothing is said about size.
	review, err = reviewFiles(context.Background(), api.PullRequest{}, []api.PullRequestFile{generatedFile("store/small_test.go", 400)})
	require.NoError(t, err)
	require.Empty(t, review.Findings)
}

func TestPullRequestSizeFromGitHubCountsBeyondListedFiles(t *testing.T) {
	review, err := reviewFiles(context.Background(), api.PullRequest{Additions: 5000}, []api.PullRequestFile{generatedFile("a_test.go", 10)})
	require.NoError(t, err)
	require.Equal(t, []at{{FindingLargePR, "", 0}}, places(review.Findings))
}

// generatedFile is an added file of n plain Go lines.
func generatedFile(name string, n int) api.PullRequestFile {
	lines := make([]string, 0, n+1)
	lines = append(lines, fmt.Sprintf("@@ -0,0 +1,%d @@", n))
	for i := range n {
		lines = append(lines, fmt.Sprintf("+var v%d = %d", i, i))
	}
	return api.PullRequestFile{Filename: name, Status: "added", Additions: n, Patch: strings.Join(lines, "\n")}
}

func TestRemovedAndRenamedFilesNeedNoPatch(t *testing.T) {
	review, err := reviewFiles(context.Background(), api.PullRequest{}, []api.PullRequestFile{
		{Filename: "old/gone.go", Status: "removed", Deletions: 40},
		{Filename: "docs/moved.md", Status: "renamed"},
	})
	require.NoError(t, err)
	require.Empty(t, review.Findings, "a removed Go file leaves no untested change, a pure rename has no patch to miss")
}

// fixtureCommentBody is the comment the reviewer writes for the named
// fixture's pull request.
func fixtureCommentBody(t *testing.T, fixture, title, goal string) string {
	t.Helper()
	fx := loadFixture(t, fixture)
	review, err := reviewFiles(context.Background(), fx.PullRequest, fx.Files)
	require.NoError(t, err)
	return review.commentBody(title, goal)
}

// The comment lists every finding by file and line, and says what it could
// not review; it never repeats a secret it found.
func TestCommentBodyListsWhatItFound(t *testing.T) {
	for _, tc := range []struct {
		name, fixture, title string
		want, never          []string
	}{{
		name:    "CommentBodyListsFindingsWithoutSecretValues",
		fixture: "secrets", title: "acme/widgets#9: Wire up deployment credentials",
		want: []string{
			"## Review of acme/widgets#9: Wire up deployment credentials",
			"**5 findings**",
			"- `deploy/prod.env` line 2: looks like an AWS access key ID committed",
			"- `settings.py` line 13: looks like a hard-coded api_key literal committed",
		},
		never: []string{
			"AKIAIOSFODNN7EXAMPLE", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
			"correct-horse-battery-staple", "MIIEowIBAAKCAQEA",
		},
	}, {
		name:    "CommentBodyMarksTruncatedAndBinaryFilesAsNotFullyReviewed",
		fixture: "truncated", title: "acme/widgets#10: Regenerate schema",
		want: []string{
			"- `gen/schema.go` line 5: new `TODO` marker",
			"- `gen/schema.go`: patch truncated (",
			" of 250000 bytes shown); not fully reviewed.",
			"- `assets/logo.png`: no patch (binary or too large); not reviewed.",
			"- `gen/`: Go package changed (`schema.go`) with no `_test.go` change in it.",
			"2 files could not be fully reviewed.",
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			body := fixtureCommentBody(t, tc.fixture, tc.title, "")
			for _, want := range tc.want {
				require.Contains(t, body, want)
			}
			for _, secret := range tc.never {
				require.NotContains(t, body, secret)
			}
		})
	}
}

func TestCommentBodyOfCleanPullRequestSaysWhatWasChecked(t *testing.T) {
	body := fixtureCommentBody(t, "clean", "acme/widgets#8: Reject empty widget names", "keep names valid")

	require.Equal(t, "## Review of acme/widgets#8: Reject empty widget names\n\n"+
		"Goal: keep names valid\n\n"+
		"No findings: nothing to flag in the changed lines.\n\n"+
		"What I checked: 3 files (+8 −1) for added TODO/FIXME/XXX/HACK markers, leftover debug output, "+
		"committed secrets, very large additions, Go packages changed without tests, and truncated patches.\n", body)
}

func TestCommentBodyCapsTheListOfAHugePullRequest(t *testing.T) {
	var files []api.PullRequestFile
	for i := range 60 {
		files = append(files, api.PullRequestFile{Filename: fmt.Sprintf("n%02d.txt", i), Status: "modified", Additions: 1,
			Patch: "@@ -1 +1 @@\n-x\n+TODO x"})
	}
	review, err := reviewFiles(context.Background(), api.PullRequest{}, files)
	require.NoError(t, err)
	body := review.commentBody("x", "")
	require.Contains(t, body, "**60 findings**")
	require.Equal(t, maxListedFindings+1, strings.Count(body, "\n- "))
	require.Contains(t, body, "- …and 10 more not listed here.")
}

func TestReviewStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := reviewFiles(ctx, api.PullRequest{}, loadFixture(t, "findings").Files)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCodeSpanFenceOutgrowsEveryBacktickRunInTheName(t *testing.T) {
	for name, want := range map[string]string{
		"main.go":       "`main.go`",
		"a`b.go":        "``a`b.go``",
		"a``b```c":      "````a``b```c````",
		"`lead.go":      "`` `lead.go ``",
		"trail.go`":     "`` trail.go` ``",
		" spaced.go ":   "`  spaced.go  `",
		" ":             "` `",
		"two\nlines.go": "`two lines.go`",
		"x<!--y-->.go":  "`x<\u200b!--y-->.go`",
		"<!--<!--.go":   "`<\u200b!--<\u200b!--.go`",
	} {
		require.Equal(t, want, codeSpan(name), "%q", name)
	}
}

func TestOmittedPatchIsReportedAsNotReviewed(t *testing.T) {
	files := []api.PullRequestFile{{Filename: "gen/big.sql", Status: "added", Additions: 300, PatchOmitted: true, PatchBytes: 12000}}

	review, err := reviewFiles(context.Background(), api.PullRequest{}, files)

	require.NoError(t, err)
	require.Equal(t, []at{{FindingOmittedPatch, "gen/big.sql", 0}}, places(review.Findings))
	require.Equal(t, 1, review.Unreviewed)
	require.Contains(t, review.commentBody("acme/widgets#1", ""),
		"- `gen/big.sql`: patch left out, the pull request's patches together being too large; not reviewed.")
}
