package redact

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestACredentialNeverReachesAStepRecord(t *testing.T) {
	token := "ghp_" + strings.Repeat("a", 36)

	got := JSON(map[string]string{"body": "use " + token + " here"})

	require.JSONEq(t, `{"body":"use [redacted] here"}`, string(got))
}

func TestContentPastTheLimitIsReplacedByItsHeadSizeAndDigest(t *testing.T) {
	body := strings.Repeat("é", safeLimit)
	raw, err := json.Marshal(body)
	require.NoError(t, err)

	var note truncatedNote
	require.NoError(t, json.Unmarshal(JSON(body), &note))

	sum := sha256.Sum256(raw)
	require.True(t, note.Truncated)
	require.Equal(t, len(raw), note.Bytes)
	require.Equal(t, hex.EncodeToString(sum[:]), note.SHA256)
	require.LessOrEqual(t, len(note.Head), safeLimit/2)
	require.True(t, strings.HasPrefix(string(raw), note.Head), "the head is the start of the content, cut on a character")
}

func TestAFileSummaryTellsThePatchSizeNotThePatch(t *testing.T) {
	files := []api.PullRequestFile{
		{Filename: "a.go", Status: "modified", Additions: 2, Deletions: 1, Patch: "@@ -1 +1 @@"},
		{Filename: "big.go", Status: "added", PatchOmitted: true, PatchBytes: 90000},
	}

	require.Equal(t, []FileSummary{
		{Filename: "a.go", Status: "modified", Additions: 2, Deletions: 1, PatchBytes: 11},
		{Filename: "big.go", Status: "added", PatchBytes: 90000},
	}, FileSummaries(files))
}

// An action's record names what it touches however long its preview: a
// follow-up and an approver's caution read the target of an action in
// doubt from it. The preview is cut as any content is; a target too long
// to keep is left out, which readers take as "any target".
func TestAnActionsRecordKeepsItsTargetWhenItsPreviewIsCut(t *testing.T) {
	var rec struct {
		Target  string `json:"target"`
		Preview string `json:"preview"`
		truncatedNote
	}
	short := Action("acme/widgets#1", map[string]any{"preview": "LGTM"})
	require.JSONEq(t, `{"target":"acme/widgets#1","preview":"LGTM"}`, string(short))

	long := Action("acme/widgets#1", map[string]any{"preview": strings.Repeat("A finding at length. ", 400)})
	require.LessOrEqual(t, len(long), safeLimit)
	require.NoError(t, json.Unmarshal(long, &rec))
	require.Equal(t, "acme/widgets#1", rec.Target)
	require.True(t, rec.Truncated)
	require.Empty(t, rec.Preview, "the preview is only in the cut head")

	var tooLong map[string]any
	require.NoError(t, json.Unmarshal(Action(strings.Repeat("t", maxKeptTarget+1), map[string]any{"preview": strings.Repeat("p", safeLimit)}), &tooLong))
	require.NotContains(t, tooLong, "target")
	require.Equal(t, true, tooLong["truncated"])

	secret := Action("ghp_"+strings.Repeat("a", 30), map[string]any{"preview": strings.Repeat("p", safeLimit)})
	require.NotContains(t, string(secret), "ghp_a")
}
