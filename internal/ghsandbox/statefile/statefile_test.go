package statefile

import (
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

	require.NoError(t, Write(path, state{Version: 1, Names: []string{"a"}}))
	require.NoError(t, Write(path, state{Version: 1, Names: []string{"a", "b"}}))

	var got state
	found, err := Read(path, &got)
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, state{Version: 1, Names: []string{"a", "b"}}, got)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the temporary file is renamed into place")
}

func TestMissingFileIsNotFoundAndNotAnError(t *testing.T) {
	var got state
	found, err := Read(filepath.Join(t.TempDir(), "none.json"), &got)

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
			found, err := Read(path, &got)

			require.True(t, found)
			require.ErrorContains(t, err, "not a state file")
			require.ErrorContains(t, err, path)
		})
	}
}

func TestWriteIntoAMissingDirectoryFailsAndNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gone", "state.json")

	err := Write(path, state{Version: 1})

	require.ErrorContains(t, err, path)
	require.NoFileExists(t, path)
}
