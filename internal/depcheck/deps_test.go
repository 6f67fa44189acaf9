package depcheck

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

const mod = "github.com/agentrun/agentrun"

// arrows are the dependencies each package must never hold, directly or
// through another: a package named here, or anything under it.
var arrows = []struct {
	name      string
	packages  []string
	forbidden []string
}{
	{
		// Importing workflows for one wire name once dragged activities and
		// openai-go into both; package api exists so that they need neither.
		name:     "the starter and the approval server link neither the workflow nor the model",
		packages: []string{"./starter", "./approval"},
		forbidden: []string{
			mod + "/workflows", mod + "/activities", "github.com/openai/openai-go",
		},
	},
	{
		// workflows -> tools -> adapters: the workflow reads api and the
		// tool registry, and declares what else it needs (the handoff).
		name:     "the workflow links no adapter, agent, integration or client",
		packages: []string{"./workflows"},
		forbidden: []string{
			mod + "/activities", mod + "/agents",
			mod + "/tools/ghtools", mod + "/tools/httptool", mod + "/tools/mcptool", mod + "/tools/merchanttool",
			mod + "/github", mod + "/model",
			"github.com/google/go-github", "github.com/openai/openai-go",
		},
	},
	{
		// The activities adapt tools, model and github; the built-in agents
		// and the signer are the assembly's to give them.
		name:      "the activities link neither the built-in agents nor the approval server",
		packages:  []string{"./activities"},
		forbidden: []string{mod + "/agents", mod + "/internal/approvalsrv"},
	},
	{
		name:      "the model interface links no provider",
		packages:  []string{"./model"},
		forbidden: []string{mod + "/model/offline", mod + "/model/openai", "github.com/openai/openai-go"},
	},
}

// TestArrowsRunOneWay lists what each package links (go list -deps) and
// fails when one of them holds a dependency its arrow forbids.
func TestArrowsRunOneWay(t *testing.T) {
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	for _, a := range arrows {
		t.Run(a.name, func(t *testing.T) {
			cmd := exec.Command("go", append([]string{"list", "-deps"}, a.packages...)...)
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "go list: %s", out)
			deps := strings.Fields(string(out))
			require.Contains(t, deps, mod+"/api", "the sanity check: the list is the packages' dependencies")
			require.Empty(t, violations(deps, a.forbidden), "%s link what they must not", strings.Join(a.packages, ", "))
		})
	}
}

// violations are the deps that are, or sit under, one of forbidden.
func violations(deps, forbidden []string) []string {
	var bad []string
	for _, dep := range deps {
		for _, f := range forbidden {
			if dep == f || strings.HasPrefix(dep, f+"/") {
				bad = append(bad, dep)
			}
		}
	}
	return bad
}

// TestViolationsSeeAPackageAndWhatSitsUnderIt keeps the matcher honest: a
// forbidden path catches itself and its subpackages, not a sibling that
// only shares its prefix.
func TestViolationsSeeAPackageAndWhatSitsUnderIt(t *testing.T) {
	deps := []string{mod + "/model", mod + "/model/openai", mod + "/modelish", mod + "/internal/approvalsrv/auth"}

	require.Equal(t, []string{mod + "/model/openai"}, violations(deps, []string{mod + "/model/openai"}))
	require.Equal(t, []string{mod + "/internal/approvalsrv/auth"}, violations(deps, []string{mod + "/internal/approvalsrv"}))
	require.Empty(t, violations(deps, []string{mod + "/mode"}))
}
