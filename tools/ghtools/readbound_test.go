package ghtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/ghtools"
)

var bigPR = api.Target{Owner: "acme", Repo: "widgets", PullNumber: ghsandbox.BigPull}

// Before the listing kept within the read bound, the 3,000 files of this
// pull request answered about 840 KB, which the worker cut as text: the
// model read a note instead of files, and the review said the read failed.
func TestListingOfAThreeThousandFilePullRequestKeepsWhatFitsAndNamesTheRest(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	ghsandbox.AddBigPull(&f)
	sb, acts := newSandbox(t, f)

	out, err := ghtools.NewListPullRequestFiles(acts).Execute(context.Background(), tools.Call{Args: json.RawMessage(`{}`), Target: bigPR})

	require.NoError(t, err)
	require.Equal(t, 30, sb.countRequests(ghsandbox.OpListFiles), "every page was read")
	require.LessOrEqual(t, len(out.Content), api.MaxToolResultBytes, "the listing passes the worker's bound whole")
	var l api.PullRequestFiles
	require.NoError(t, json.Unmarshal(out.Content, &l), "the model reads files, not text")
	require.NotNil(t, l.LeftOut)
	require.Equal(t, ghsandbox.BigPullFiles, len(l.Files)+l.LeftOut.Count, "every file is either listed or counted as left out")
	require.Greater(t, len(l.Files), 100, "the bound is used, not given up")
	require.Equal(t, "codec.go", l.Files[0].Filename)
	require.NotEmpty(t, l.Files[0].Patch, "the first files come with their patch")
	require.Equal(t, api.MaxToolResultBytes, l.LeftOut.BoundBytes)
	require.Contains(t, l.LeftOut.Reason, fmt.Sprintf("after %d of 3000 files", len(l.Files)))

	require.Len(t, l.LeftOut.Names, api.MaxLeftOutNames)
	first := len(l.Files) - 2 // the two files of the project's own come first
	require.Equal(t, fmt.Sprintf("vendor/github.com/example/codec/gen/table%04d.go", first), l.LeftOut.Names[0],
		"the names are those of the first files left out, in GitHub's order")

	var shown struct {
		Truncated bool   `json:"truncated"`
		Head      string `json:"head"`
	}
	require.NoError(t, json.Unmarshal(out.SafeOutput, &shown))
	require.True(t, shown.Truncated, "a step shows the head of a long listing")
	require.True(t, strings.HasPrefix(shown.Head, fmt.Sprintf(`{"leftOut":{"count":%d,`, l.LeftOut.Count)),
		"and what was left out heads it: %s", shown.Head)
	require.NotContains(t, string(out.SafeOutput), "@@", "and no patch")
}

// A pull request's file names are its author's: long ones cannot grow what
// the listing says of the files it left out past its room.
func TestLeftOutNamesStayWithinTheirRoomHoweverLongTheNames(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	pull := &f.Repos[0].Pulls[0]
	pull.Files = nil
	long := strings.Repeat("d/", 500) // 1,000 bytes of directories
	for i := range 3000 {
		pull.Files = append(pull.Files, ghsandbox.FixtureFile{Filename: fmt.Sprintf("%sf%04d.go", long, i), Status: "added",
			Patch: "@@ -0,0 +1 @@\n+package d"})
	}
	_, acts := newSandbox(t, f)

	l, err := listing(acts, demoPR)

	require.NoError(t, err)
	require.NotNil(t, l.LeftOut)
	require.Equal(t, 3000, len(l.Files)+l.LeftOut.Count)
	require.NotEmpty(t, l.LeftOut.Names)
	require.Less(t, len(l.LeftOut.Names), api.MaxLeftOutNames, "names this long fill the room first")
	raw, err := json.Marshal(l)
	require.NoError(t, err)
	require.LessOrEqual(t, len(raw), api.MaxToolResultBytes)
}

func TestListingThatFitsLeavesNothingOut(t *testing.T) {
	_, acts := newSandbox(t, ghsandbox.DefaultFixture())

	l, err := listing(acts, demoPR)

	require.NoError(t, err)
	require.Nil(t, l.LeftOut)
	require.Len(t, l.Files, 3)
}
