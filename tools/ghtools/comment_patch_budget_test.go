package ghtools_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func TestListingOfManyLargePatchesStaysWithinTheTotalBudgetAndSaysWhatItLeftOut(t *testing.T) {
	f := ghsandbox.DefaultFixture()
	pull := &f.Repos[0].Pulls[0]
	// 300 files of 10 KiB each: 3 MiB of patches, over Temporal's 2 MiB payload limit.
	patch := "@@ -0,0 +1,256 @@\n" + strings.Repeat("+\t// forty bytes of generated source...\n", 256)
	pull.Files = nil
	for i := range 300 {
		pull.Files = append(pull.Files, ghsandbox.FixtureFile{Filename: fmt.Sprintf("gen/f%03d.go", i), Status: "added", Patch: patch})
	}
	pull.Files = append(pull.Files, ghsandbox.FixtureFile{Filename: "README.md", Status: "modified", Patch: "@@ -1 +1 @@\n-a\n+b"})
	_, acts := newSandbox(t, f)

	files, err := listFiles(acts, demoPR)

	require.NoError(t, err)
	require.Len(t, files, 301)
	total, kept := 0, 0
	for _, file := range files {
		total += len(file.Patch)
		if file.Patch != "" {
			kept++
		}
	}
	require.LessOrEqual(t, total, 256<<10)
	require.Equal(t, (256<<10)/len(patch), kept-1, "whole patches in file order, plus the small last one")
	require.Equal(t, patch, files[0].Patch)

	omitted := files[kept-1]
	sum := sha256.Sum256([]byte(patch))
	require.Equal(t, api.PullRequestFile{
		Filename: omitted.Filename, Status: "added", Additions: 256,
		PatchOmitted: true, PatchBytes: len(patch), PatchSHA256: hex.EncodeToString(sum[:]),
	}, omitted)
	require.Equal(t, "@@ -1 +1 @@\n-a\n+b", files[300].Patch, "a small patch after the budget ran out still fits")

	raw, err := json.Marshal(files)
	require.NoError(t, err)
	require.Less(t, len(raw), 512<<10, "the result stays far below Temporal's payload limit")
}
