package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TemporalCLIEnv names another Temporal CLI than bin/temporal, for a machine
// that keeps it elsewhere (or, in the kit's own test, a path where none is).
const TemporalCLIEnv = "AGENTRUN_TEST_TEMPORAL_CLI"

// CIEnv is set by CI runners; with it set, a missing tool fails its test
// instead of skipping it, so CI never passes by leaving tests out.
const CIEnv = "CI"

// TemporalCLI is the Temporal CLI the dev servers of the tests run:
// $AGENTRUN_TEST_TEMPORAL_CLI, or bin/temporal at the repository root.
// Without it the test skips (a fresh clone has no bin/) with how to get it,
// or fails when CI is set.
func TemporalCLI(t testing.TB) string {
	t.Helper()
	path := os.Getenv(TemporalCLIEnv)
	if path == "" {
		root, err := RepoRoot()
		if err != nil {
			t.Fatalf("testkit: %v", err)
		}
		path = filepath.Join(root, "bin", "temporal")
	}
	if _, err := os.Stat(path); err != nil {
		ToolMissing(t, "no Temporal CLI at "+path, "build it with `make bin/temporal` (make test does)")
	}
	return path
}

// ToolMissing ends t because a program it needs is not installed: a skip
// that says how to get it, or a failure when CI is set.
func ToolMissing(t testing.TB, problem, remedy string) {
	t.Helper()
	if os.Getenv(CIEnv) != "" {
		t.Fatalf("%s; %s. CI is set, so a missing tool fails the test instead of skipping it", problem, remedy)
	}
	t.Skipf("%s; %s", problem, remedy)
}

// Chromium is Debian's chromium, which the browser tests drive: a skip
// that says how to install it, or a failure when CI is set.
func Chromium(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		ToolMissing(t, "chromium is not installed", "apt-get install -y chromium (.ci/run does)")
	}
	return path
}

// AxeCorePath is where `make` installs axe-core, which the browser tests
// inject into Chromium, under the repository's root.
const AxeCorePath = "bin/axe-core/node_modules/axe-core/axe.min.js"

// AxeCore is axe-core's script: a skip that says how to install it, or a
// failure when CI is set.
func AxeCore(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatalf("repository root: %v", err)
	}
	src, err := os.ReadFile(filepath.Join(root, AxeCorePath))
	if err != nil {
		ToolMissing(t, "axe-core is not installed", "make "+AxeCorePath+" (npm; make test does)")
	}
	return string(src)
}

// AxeSeriousViolations is the script a browser test evaluates (awaiting
// its promise) once AxeCore is injected: axe-core's WCAG 2.1 A and AA
// rules on the page, answering the serious and critical violations as
// AxeViolation values.
const AxeSeriousViolations = `axe.run(document, {
	runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
}).then(r => r.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
	id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(n => n.target.join(" ")),
})))`

// AxeViolation is one rule axe-core found broken, and where.
type AxeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}
