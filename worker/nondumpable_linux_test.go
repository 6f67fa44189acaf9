package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agentworker"
	"github.com/agentrun/agentrun/internal/testkit/standalone"

	"github.com/agentrun/agentrun/internal/testkit"
)

// The worker's own main, re-executed from this test binary as another user.
func TestMain(m *testing.M) { testkit.Main(m, main) }

const (
	workerToken       = "ghp_theWorkersOwnToken0123456789abcdef"
	workerPayloadKeys = "k1:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
)

// identityProbe is a GitHub that never answers GET /user, which holds the
// worker in start-up, and tells which token it was asked with: by then the
// worker has read its secrets and would start its stdio servers next.
func identityProbe(t *testing.T) (url string, asked <-chan string) {
	t.Helper()
	ch := make(chan string, 1)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case ch <- r.Header.Get("Authorization"):
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL + "/", ch
}

// waitForIdentify waits until the worker asks GitHub who it is, or fails
// as soon as it exits instead.
func waitForIdentify(t *testing.T, worker *testkit.Process, asked <-chan string) string {
	t.Helper()
	select {
	case auth := <-asked:
		return auth
	case <-worker.Exited():
		t.Fatalf("the worker exited before asking GitHub who it is:\n%s", worker.Output())
	case <-time.After(2 * time.Minute):
		t.Fatal("the worker never asked GitHub who it is")
	}
	return ""
}

// A stdio MCP server runs as the worker's user. Before the worker made
// itself non-dumpable, such a process read GITHUB_TOKEN and
// AGENTRUN_PAYLOAD_KEYS from /proc/<worker>/environ and its memory.
func TestProcessOfTheWorkersUserCannotReadTheWorkersSecrets(t *testing.T) {
	github, asked := identityProbe(t)
	user := testkit.NewSameUser(t)
	worker := user.Program(t, []string{"GITHUB_API_URL=" + github, "GITHUB_TOKEN=" + workerToken,
		"AGENTRUN_PAYLOAD_KEYS=" + workerPayloadKeys, "TEMPORAL_ADDRESS=" + testkit.FreeAddress(t)})
	require.Contains(t, waitForIdentify(t, worker, asked), workerToken, "the worker runs with the secret")
	proc := fmt.Sprintf("/proc/%d/", worker.Pid())

	status, err := user.Read(t, proc+"status")
	require.NoError(t, err, "the process is there and its public files are readable")
	require.Regexp(t, fmt.Sprintf(`(?m)^Uid:\s+%d\s`, user.Uid()), string(status), "the reader is the worker's own user")
	require.ErrorIs(t, user.Trace(t, worker.Pid()), testkit.ErrRefused, "ptrace attach")
	for _, file := range []string{"environ", "mem"} {
		content, err := user.Read(t, proc+file)

		require.ErrorIs(t, err, testkit.ErrRefused, file)
		require.NotContains(t, string(content), workerToken, file)
		require.NotContains(t, string(content), workerPayloadKeys, file)
	}
}

// A secret given as a file is never in the worker's environment at all:
// not even root, who may read /proc/<pid>/environ, finds it there.
func TestWorkerReadsItsTokenFromGitHubTokenFileAndItsEnvironmentNeverHoldsIt(t *testing.T) {
	github, asked := identityProbe(t)
	user := testkit.NewSameUser(t)
	tokenFile := filepath.Join(user.Dir(), "github-token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(workerToken+"\n"), 0o400))
	user.Chown(t, tokenFile)
	worker := user.Program(t, []string{"GITHUB_API_URL=" + github, "GITHUB_TOKEN_FILE=" + tokenFile,
		"TEMPORAL_ADDRESS=" + testkit.FreeAddress(t)})

	require.Equal(t, "Bearer "+workerToken, waitForIdentify(t, worker, asked))
	if os.Geteuid() == 0 {
		environ, err := os.ReadFile("/proc/" + strconv.Itoa(worker.Pid()) + "/environ")
		require.NoError(t, err)
		require.Contains(t, string(environ), "GITHUB_TOKEN_FILE=")
		require.False(t, strings.Contains(string(environ), workerToken))
	}
}

func TestWorkerWithGitHubTokenFileSetWronglyExitsWith2NamingIt(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "github-token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(workerToken), 0o600))
	for name, vars := range map[string]map[string]string{
		"both":    {"GITHUB_TOKEN": workerToken, "GITHUB_TOKEN_FILE": tokenFile},
		"missing": {"GITHUB_TOKEN_FILE": tokenFile + ".gone"},
	} {
		t.Run(name, func(t *testing.T) {
			var stderr strings.Builder

			err := agentworker.Run(t.Context(), agentworker.Options{Getenv: standalone.Getenv(vars), Stderr: &stderr})

			require.Equal(t, 2, agentworker.ExitCode(err))
			require.ErrorContains(t, err, "GITHUB_TOKEN_FILE")
			require.NotContains(t, err.Error()+stderr.String(), workerToken)
		})
	}
}
