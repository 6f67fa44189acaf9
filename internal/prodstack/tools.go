package prodstack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentrun/agentrun/internal/testkit"
)

// The versions this package proves, and docker-compose.yml runs
// (internal/composecheck holds compose to them).
const (
	// ServerVersion is the go.temporal.io/server release built into
	// bin/ (the Makefile's TEMPORAL_SERVER_VERSION).
	ServerVersion = "v1.29.1"
	// PostgresMajor is Debian bookworm's PostgreSQL.
	PostgresMajor = 15
)

// RequiredEnv, set to 1 by `make test-prod`, turns a missing tool from a
// skip into a failure: CI must never pass by skipping the cluster.
const RequiredEnv = "AGENTRUN_TEST_PROD"

// serverModule is the module the server and its SQL tool are built from.
const serverModule = "go.temporal.io/server"

// ServerBinDir is where the Makefile installs cmd/server and cmd/tools/sql
// (as "server" and "sql"), relative to the repository root. The version in
// the name makes a version bump build afresh.
func ServerBinDir() string { return filepath.Join("bin", "temporal-server-"+ServerVersion) }

// tools are the programs a cluster needs, found on this machine.
type tools struct {
	root      string
	server    string // cmd/server
	sqlTool   string // cmd/tools/sql, temporal-sql-tool
	schemaDir string // the module's schema/postgresql/v12
	pgBin     string // initdb, postgres and pg_isready
	// pgUser runs PostgreSQL when the test is root, which PostgreSQL refuses
	// to be; nil runs it as the test's own user.
	pgUser *user.User
}

// requireTools finds what a cluster needs. When something is missing it skips t
// with a message naming it and saying that `make test-prod` runs the test,
// or fails t when RequiredEnv is set.
func requireTools(t testing.TB) tools {
	t.Helper()
	found, missing := findTools()
	if len(missing) == 0 {
		return found
	}
	msg := "the production-cluster test needs:\n  - " + strings.Join(missing, "\n  - ")
	if os.Getenv(RequiredEnv) == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + "\n`make test-prod` runs this test; it builds the server, and PostgreSQL comes from your packages (.ci/run installs it)")
	return tools{}
}

func findTools() (tools, []string) {
	var missing []string
	root, err := testkit.RepoRoot()
	if err != nil {
		return tools{}, []string{err.Error()}
	}
	found := tools{root: root}
	binDir := filepath.Join(root, ServerBinDir())
	found.server, found.sqlTool = filepath.Join(binDir, "server"), filepath.Join(binDir, "sql")
	for bin, what := range map[string]string{found.server: "the Temporal server", found.sqlTool: "its temporal-sql-tool"} {
		if _, err := os.Stat(bin); err != nil {
			missing = append(missing, fmt.Sprintf("%s, %s %s (make test-prod builds it)", bin, what, ServerVersion))
		}
	}
	slices.Sort(missing)
	if found.schemaDir, err = schemaDir(); err != nil {
		missing = append(missing, err.Error())
	}
	if found.pgBin, err = postgresBinDir(); err != nil {
		missing = append(missing, err.Error())
	}
	if os.Geteuid() == 0 {
		if found.pgUser, err = user.Lookup("postgres"); err != nil {
			missing = append(missing, "the postgres user, to run PostgreSQL as when the test is root (apt-get install postgresql creates it): "+err.Error())
		}
	}
	return found, missing
}

// schemaDir is the server module's PostgreSQL schema, from the module cache
// that the build of the server filled.
func schemaDir() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", serverModule+"@"+ServerVersion)
	// Outside this module, so that the lookup never touches go.sum, and from
	// the cache only: a test that is about to skip downloads nothing.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOPROXY=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("the schema of %s@%s in the module cache (make temporal-server downloads it; go mod download: %w)", serverModule, ServerVersion, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("the schema of %s@%s (go mod download said %q)", serverModule, ServerVersion, out)
	}
	dir := filepath.Join(mod.Dir, "schema", "postgresql", "v12")
	if _, err := os.Stat(filepath.Join(dir, "temporal", "versioned")); err != nil {
		return "", fmt.Errorf("the schema of %s@%s: %w", serverModule, ServerVersion, err)
	}
	return dir, nil
}

// postgresBinDir finds PostgreSQL PostgresMajor's server programs: Debian
// keeps them in /usr/lib/postgresql/N/bin, off PATH.
func postgresBinDir() (string, error) {
	candidates := []string{filepath.Join("/usr/lib/postgresql", strconv.Itoa(PostgresMajor), "bin")}
	if initdb, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(initdb); err == nil {
			candidates = append(candidates, filepath.Dir(real))
		}
	}
	var seen []string
	for _, dir := range slices.Compact(candidates) {
		major, err := postgresMajor(filepath.Join(dir, "postgres"))
		if err != nil {
			continue
		}
		if major == PostgresMajor {
			return dir, nil
		}
		seen = append(seen, fmt.Sprintf("%d in %s", major, dir))
	}
	msg := fmt.Sprintf("PostgreSQL %d's initdb and postgres (apt-get install postgresql on Debian bookworm; .ci/run does)", PostgresMajor)
	if len(seen) > 0 {
		msg += "; found only " + strings.Join(seen, ", ")
	}
	return "", errors.New(msg)
}

var postgresVersion = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

func postgresMajor(postgres string) (int, error) {
	out, err := exec.Command(postgres, "--version").Output()
	if err != nil {
		return 0, fmt.Errorf("%s --version: %w", postgres, err)
	}
	m := postgresVersion.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s --version said %q", postgres, out)
	}
	return strconv.Atoi(string(m[1]))
}
