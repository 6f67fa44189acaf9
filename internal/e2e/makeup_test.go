package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// makeUp is `make up`'s script run from this test's own build, data folder
// and ports, so that it never meets a developer's running stack.
type makeUp struct {
	t    *testing.T
	root string
	env  map[string]string
}

func newMakeUp(t *testing.T) *makeUp {
	t.Helper()
	root, err := testkit.RepoRoot()
	require.NoError(t, err)
	bins := builder.Binaries(t)
	binDir := filepath.Dir(bins.Worker)
	temporal := testkit.TemporalCLI(t)
	link := filepath.Join(binDir, "temporal")
	if _, err := os.Lstat(link); err != nil {
		require.NoError(t, os.Symlink(temporal, link))
	}
	port := func() string { return strings.TrimPrefix(testkit.FreeAddress(t), "127.0.0.1:") }
	m := &makeUp{t: t, root: root, env: map[string]string{
		"AGENTRUN_BIN":     binDir,
		"AGENTRUN_DATA":    t.TempDir(),
		"TEMPORAL_PORT":    port(),
		"TEMPORAL_UI_PORT": port(),
		"SANDBOX_ADDR":     testkit.FreeAddress(t),
		"APPROVAL_ADDR":    testkit.FreeAddress(t),
		"USER":             "newcomer",
	}}
	t.Cleanup(func() { m.run("down") })
	return m
}

func (m *makeUp) run(verb string) (string, int) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(m.root, "internal", "scripts", "stack.sh"), verb)
	cmd.Env = processEnv(m.env)
	out, err := cmd.CombinedOutput()
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		m.t.Fatalf("stack.sh %s: %v\n%s", verb, err, out)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// TestMakeUpWithGitHubTokenExportedStillUsesTheSandbox: a token left in the
// shell must not turn the demo into a review of a real repository.
func TestMakeUpWithGitHubTokenExportedStillUsesTheSandbox(t *testing.T) {
	m := newMakeUp(t)
	m.env["GITHUB_TOKEN"] = "ghp_a_real_looking_token_that_must_not_be_used"

	out, code := m.run("up")

	require.Equal(t, 0, code, out)
	require.Contains(t, out, "GITHUB_TOKEN is set but ignored: make up uses the GitHub sandbox")
	require.Contains(t, out, "set AGENTRUN_GITHUB=real")
	require.Contains(t, out, "is waiting for approval of action", "the demo run reached its approval on the sandbox")

	resp, err := http.Get("http://" + m.env["SANDBOX_ADDR"] + "/_sandbox/requests")
	require.NoError(t, err)
	defer resp.Body.Close()
	var requests []json.RawMessage
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&requests))
	require.NotEmpty(t, requests, "the worker read the pull request from the sandbox")

	// The demo run shows itself on the pull request as a check run whose
	// buttons decide its waiting action.
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + m.env["SANDBOX_ADDR"] + "/repos/acme/widgets/commits/feature%2Fwidget-cache/check-runs?check_name=agentrun/pr-review")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var list struct {
			TotalCount int `json:"total_count"`
		}
		return json.NewDecoder(resp.Body).Decode(&list) == nil && list.TotalCount == 1
	}, time.Minute, 100*time.Millisecond, "the demo run's check run is on the pull request's head")
	page, err := http.Get("http://" + m.env["SANDBOX_ADDR"] + "/acme/widgets/pull/1")
	require.NoError(t, err)
	defer page.Body.Close()
	html, err := io.ReadAll(page.Body)
	require.NoError(t, err)
	require.Contains(t, string(html), `data-identifier="approve-`, "the pull request's page shows the Approve button")
}

// TestMakeUpWithAPortTakenStartsNothingAndNamesTheVariable: a clash is found
// before any service starts, and the message says what to change.
func TestMakeUpWithAPortTakenStartsNothingAndNamesTheVariable(t *testing.T) {
	m := newMakeUp(t)
	taken, err := net.Listen("tcp", m.env["APPROVAL_ADDR"])
	require.NoError(t, err)
	defer taken.Close()

	out, code := m.run("up")

	require.Equal(t, 1, code, out)
	require.Contains(t, out, m.env["APPROVAL_ADDR"]+" is in use: set APPROVAL_ADDR to a free one")
	require.Contains(t, out, "nothing was started")
	pids, err := filepath.Glob(filepath.Join(m.env["AGENTRUN_DATA"], "*.pid"))
	require.NoError(t, err)
	require.Empty(t, pids, "no service was started")
}

func TestMakeUpRefusesAnUnknownGitHubMode(t *testing.T) {
	m := newMakeUp(t)
	m.env["AGENTRUN_GITHUB"] = "github.com"

	out, code := m.run("up")

	require.Equal(t, 2, code, out)
	require.Contains(t, out, "AGENTRUN_GITHUB=github.com: want sandbox or real")
}
