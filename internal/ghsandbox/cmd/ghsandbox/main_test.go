package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func TestCorruptStateFileStopsStartUpNamingSandboxState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ghsandbox.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"version":1,"nextComm`), 0o644))
	cfg, err := loadConfig(func(name string) string {
		return map[string]string{"SANDBOX_STATE": path}[name]
	})
	require.NoError(t, err)

	_, err = newSandbox(ghsandbox.DefaultFixture(), cfg.StatePath)

	require.ErrorContains(t, err, "SANDBOX_STATE")
	require.ErrorContains(t, err, path)
}

func TestWithoutSandboxStateNothingIsWritten(t *testing.T) {
	cfg, err := loadConfig(func(string) string { return "" })
	require.NoError(t, err)
	dir := t.TempDir()
	t.Chdir(dir)

	sandbox, err := newSandbox(ghsandbox.DefaultFixture(), cfg.StatePath)

	require.NoError(t, err)
	require.NotNil(t, sandbox)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)
}
