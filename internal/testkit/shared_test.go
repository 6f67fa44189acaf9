package testkit

import (
	"context"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
)

func TestMain(m *testing.M) { RunTests(m) }

// sharedChildEnv marks the re-run of this test binary whose one test takes
// the shared server and prints its address.
const sharedChildEnv = "AGENTRUN_TESTKIT_SHARED_CHILD"

// TestSharedServerChild is what the tests below run in a child process.
// Alone it does nothing.
func TestSharedServerChild(t *testing.T) {
	if os.Getenv(sharedChildEnv) == "" {
		return
	}
	s := SharedServer(t)
	t.Logf("shared-address=%s", s.Address())
}

func runSharedChild(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run", "^TestSharedServerChild$", "-test.v", "-test.count=1"}, args...)...)
	cmd.Env = append(os.Environ(), sharedChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestSharedServerIsOneServerForTheTestsOfABinaryWithTheSearchAttributes(t *testing.T) {
	var first string
	for _, name := range []string{"first", "second"} {
		t.Run(name, func(t *testing.T) {
			s := SharedServer(t)
			if first == "" {
				first = s.Address()
			}
			require.Equal(t, first, s.Address(), "the second test meets the first one's server")
			_, err := s.Client().ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
				Query: `AgentRunStatus = "running"`,
			})
			require.NoError(t, err, "the AgentRunStatus search attribute must be registered")
		})
	}
}

// RunTests stops the server once the tests end: nothing listens on its
// address after the test binary exits.
func TestNoSharedServerOutlivesItsTestBinary(t *testing.T) {
	NeedsDevServer(t)
	TemporalCLI(t)
	out, err := runSharedChild(t)
	require.NoError(t, err, out)
	m := regexp.MustCompile(`shared-address=(\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "the child never reached the shared server:\n%s", out)

	conn, err := net.DialTimeout("tcp", m[1], 5*time.Second)
	if err == nil {
		conn.Close()
	}
	require.Error(t, err, "the shared server at %s is still listening after its test binary exited", m[1])
}

func TestSharedServerSkipsInShortMode(t *testing.T) {
	out, err := runSharedChild(t, "-test.short")

	require.NoError(t, err, out)
	require.Contains(t, out, "--- SKIP: TestSharedServerChild")
	require.NotContains(t, out, "shared-address=")
}

func TestSharedServerWithoutTheTemporalCLIFailsWhenCIIsSet(t *testing.T) {
	missing := TemporalCLIEnv + "=" + t.TempDir() + "/no-temporal-here"
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSharedServerChild$", "-test.v", "-test.count=1")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, CIEnv+"=") && !strings.HasPrefix(kv, TemporalCLIEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, sharedChildEnv+"=1", missing, CIEnv+"=true")
	out, err := cmd.CombinedOutput()

	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "CI must not pass with the shared-server tests skipped:\n%s", out)
	require.Contains(t, string(out), "--- FAIL: TestSharedServerChild")
	require.Contains(t, string(out), "make bin/temporal")
}

func TestUniqueNamesDifferForEveryCallAndCarryTheTestsName(t *testing.T) {
	a, b := Unique(t, "queue"), Unique(t, "queue")

	require.NotEqual(t, a, b, "a rerun under -count gets another name")
	require.True(t, strings.HasPrefix(a, "queue-TestUniqueNamesDifferForEveryCallAndCarryTheTestsName-"), a)
	t.Run("a sub/test name", func(t *testing.T) {
		require.Regexp(t, `^q-TestUniqueNames[A-Za-z]*_a_sub_test_name-\d+$`, Unique(t, "q"))
	})
}
