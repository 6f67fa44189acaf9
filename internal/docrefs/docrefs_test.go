package docrefs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	return root
}

// TestDocsAndCommentsNameOnlyPathsThatExist runs the checker over the
// repository: every markdown page and every Go comment.
func TestDocsAndCommentsNameOnlyPathsThatExist(t *testing.T) {
	c, err := NewChecker(repoRoot(t))
	require.NoError(t, err)

	found, err := c.Repository()

	require.NoError(t, err)
	var lines []string
	for _, f := range found {
		lines = append(lines, f.String())
	}
	require.Empty(t, lines, "stale references; fix each (a moved file's new path, a relative one for a machine's):\n%s", strings.Join(lines, "\n"))
}

func TestTheCheckerFindsAMovedFileAndAMachinesPath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "workflows"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "api"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "workflows", "duration.go"), nil, 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "docs"), 0o755))
	c, err := NewChecker(root)
	require.NoError(t, err)

	found := c.Text("docs/page.md", 1, "see `api/run.go`, now `workflows/duration.go`\n"+
		"tuned as /work/shared/DEVSERVER.md says; `acme/widgets`, https://x.io/api/run.go, api/v1 prose\n"+
		"[the page](../workflows/duration.go), [gone](missing.md), [anchor](#x)", true)

	require.Equal(t, []Finding{
		{"docs/page.md", 1, "api/run.go", "no such path in the repository"},
		{"docs/page.md", 2, "/work/shared/DEVSERVER.md", "an absolute path of one machine"},
		{"docs/page.md", 3, "missing.md", "the link's target does not exist"},
	}, found)
}

func TestAnImportPathOfTheModuleIsCheckedAsARepositoryPath(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "internal", "testenv"), 0o755))
	c, err := NewChecker(root)
	require.NoError(t, err)

	found := c.Text("x.go", 7, "github.com/agentrun/agentrun/internal/testenv and github.com/agentrun/agentrun/internal/payloadstore", false)

	require.Equal(t, []Finding{{"x.go", 7, "internal/payloadstore", "no such path in the repository"}}, found)
}

// make up leaves .data/ and make leaves bin/ in a checkout: the docs name
// paths in them (.data/webhook-secret) as a run leaves them, and a
// repository that has run the stack once must still pass.
func TestPathsUnderWhatARunWritesAreNotRepositoryPaths(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{".data", "bin", "docs"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	c, err := NewChecker(root)
	require.NoError(t, err)
	require.Empty(t, c.Text("docs/page.md", 1, "the secret is in `.data/webhook-secret`, the binary `bin/starter`\n", true))
}
