package depcheck

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// TestStarterAndApprovalServerLinkNeitherTheWorkflowNorTheModel lists what
// the two client binaries link. Importing workflows for one wire name once
// dragged activities and openai-go into both; package api exists so that
// they need neither.
func TestStarterAndApprovalServerLinkNeitherTheWorkflowNorTheModel(t *testing.T) {
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	cmd := exec.Command("go", "list", "-deps", "./starter", "./approval")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go list: %s", out)

	forbidden := []string{
		"github.com/agentrun/agentrun/workflows",
		"github.com/agentrun/agentrun/activities",
		"github.com/openai/openai-go",
	}
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/agentrun/agentrun/api", "the sanity check: the list is the binaries' dependencies")
	for _, dep := range deps {
		for _, f := range forbidden {
			require.False(t, dep == f || strings.HasPrefix(dep, f+"/"), "starter or approval links %s", dep)
		}
	}
}
