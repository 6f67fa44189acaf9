package agentworker_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
)

func TestAToolsFilesHTTPToolSaysWhatItDoesInItsOwnWords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"httpTools":[{"name":"create_ticket","baseUrl":"https://tickets.example.com",
		"allowedPaths":["/tickets"],"words":{"noun":"ticket","verb":"open","past":"opened"},"idField":"key","agents":[{"name":"pr-review"}]}]}`), 0o600))
	f, err := agentworker.ReadToolsFile(path)
	require.NoError(t, err)
	set, err := agentworker.ConnectTools(t.Context(), f, nil, nil)
	require.NoError(t, err)
	defer set.Close()

	tool, ok := set.Registry.Tool("create_ticket")
	require.True(t, ok)
	require.Equal(t, api.ToolWords{Noun: "ticket", Verb: "open", Past: "opened"}, tool.Spec().Words)
	require.Equal(t, "Waiting for approval to open a ticket", tool.Spec().Words.Or("create_ticket").WaitingLabel())
}
