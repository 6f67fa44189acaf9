package ghsandbox

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

type state struct {
	Version int      `json:"version"`
	Names   []string `json:"names"`
}

func TestWrittenStateReadsBackAndNoTemporaryFileStays(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")

	require.NoError(t, writeStateFile(path, state{Version: 1, Names: []string{"a"}}))
	require.NoError(t, writeStateFile(path, state{Version: 1, Names: []string{"a", "b"}}))

	var got state
	found, err := readStateFile(path, &got)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, state{Version: 1, Names: []string{"a", "b"}}, got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the temporary file is renamed into place")
}

func TestMissingFileIsNotFoundAndNotAnError(t *testing.T) {
	var got state
	found, err := readStateFile(filepath.Join(t.TempDir(), "none.json"), &got)

	require.NoError(t, err)
	require.False(t, found)
}

func TestFileWithAnUnknownFieldOrTrailingDataIsRefused(t *testing.T) {
	for name, content := range map[string]string{
		"unknown field": `{"version":1,"names":[],"faults":[]}`,
		"trailing data": `{"version":1,"names":[]} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			require.NoError(t, os.WriteFile(path, []byte(content), 0o644))

			var got state
			found, err := readStateFile(path, &got)

			require.True(t, found)
			require.ErrorContains(t, err, "not a state file")
			require.ErrorContains(t, err, path)
		})
	}
}

func TestWriteIntoAMissingDirectoryFailsAndNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", "state.json")

	err := writeStateFile(path, state{Version: 1})

	require.ErrorContains(t, err, path)
	require.NoFileExists(t, path)
}

// TestWriteSyncsTheDirectoryAfterTheRename: the directory is synced once the
// new file is in place, by the real syncDir.
func TestWriteSyncsTheDirectoryAfterTheRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	var synced []string
	err := writeAtomic(path, []byte(`{"version":2,"names":[]}`), func(d string) error {
		raw, err := os.ReadFile(path)
		require.NoError(t, err, "the rename comes before the directory's sync")
		require.JSONEq(t, `{"version":2,"names":[]}`, string(raw))
		synced = append(synced, d)
		return syncDir(d)
	})

	require.NoError(t, err)
	require.Equal(t, []string{dir}, synced)
}

func TestAFailedDirectorySyncIsReportedAndLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	refused := errors.New("input/output error")

	err := writeAtomic(path, []byte(`{"version":1,"names":[]}`), func(string) error { return refused })

	require.ErrorIs(t, err, refused)
	require.ErrorContains(t, err, "a crash may still undo it")
	entries, readErr := os.ReadDir(dir)
	require.NoError(t, readErr)
	require.Len(t, entries, 1, "the file is in place and no temporary file stays")
}

func TestSyncDirOfAMissingDirectoryNamesIt(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")

	err := syncDir(gone)

	require.ErrorIs(t, err, fs.ErrNotExist)
	require.ErrorContains(t, err, gone)
}
