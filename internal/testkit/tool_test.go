package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// childEnv marks the re-run of this test binary that starts a server
// against a Temporal CLI that is not there.
const childEnv = "AGENTRUN_TESTENV_CHILD"

// TestStartServerWithNoTemporalCLIChild is what the tests below run in a
// child process: StartServer with the CLI missing. Alone it does nothing.
func TestStartServerWithNoTemporalCLIChild(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		return
	}
	StartServer(t, ServerOptions{})
	t.Log("StartServer returned without a Temporal CLI")
}

// runWithoutTemporalCLI runs the child test in a process whose Temporal
// CLI is missing, with CI set to ci ("" unsets it), and returns its output.
func runWithoutTemporalCLI(t *testing.T, ci string) (string, error) {
	t.Helper()
	missing := filepath.Join(t.TempDir(), "no-temporal-here")
	cmd := exec.Command(os.Args[0], "-test.run", "^TestStartServerWithNoTemporalCLIChild$", "-test.v", "-test.count=1")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, CIEnv+"=") && !strings.HasPrefix(kv, TemporalCLIEnv+"=") {
			env = append(env, kv)
		}
	}
	env = append(env, childEnv+"=1", TemporalCLIEnv+"="+missing)
	if ci != "" {
		env = append(env, CIEnv+"="+ci)
	}
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestMissingTemporalCLISkipsWithHowToBuildItOutsideCI(t *testing.T) {
	out, err := runWithoutTemporalCLI(t, "")

	require.NoError(t, err, "a skip is not a failure:\n%s", out)
	require.Contains(t, out, "--- SKIP: TestStartServerWithNoTemporalCLIChild")
	require.Contains(t, out, "make bin/temporal", "the skip says how to get the CLI")
	require.NotContains(t, out, "StartServer returned")
}

func TestMissingTemporalCLIFailsTheTestWhenCIIsSet(t *testing.T) {
	out, err := runWithoutTemporalCLI(t, "true")

	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "CI must not pass with the dev-server tests skipped:\n%s", out)
	require.Contains(t, out, "--- FAIL: TestStartServerWithNoTemporalCLIChild")
	require.Contains(t, out, "make bin/temporal")
	require.NotContains(t, out, "--- SKIP")
}
