package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// TestMakeUpPrintsARecommenderCommandThatRunsOnItsWorker: the command make
// up prints for the recommender (the README's) starts a recommend run on
// the worker it started, which reads the sandbox's merchants in words and
// waits for alice to approve the save.
func TestMakeUpPrintsARecommenderCommandThatRunsOnItsWorker(t *testing.T) {
	m := newMakeUp(t)
	out, code := m.run("up")
	require.Equal(t, 0, code, out)

	var command string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "recommender:"); ok {
			command = strings.TrimSpace(rest)
		}
	}
	require.NotEmpty(t, command, "make up prints the recommender's command:\n%s", out)
	// The command names bin/starter in the repository; this test's build is elsewhere.
	command = strings.Replace(command, "bin/starter", filepath.Join(filepath.Dir(builder.Binaries(t).Worker), "starter"), 1)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", command)
	cmd.Env = processEnv(map[string]string{"USER": "newcomer"})
	got, err := cmd.CombinedOutput()
	require.NoError(t, err, string(got))
	require.Contains(t, string(got), "is waiting for approval of action", "the save waits for alice")
	require.Contains(t, string(got), "Waiting for approval to save a recommendation")

	// The run's labels, as events --json carries them, are its stages in words.
	runID, _, _ := strings.Cut(string(got), "\n")
	events := strings.SplitN(command, " start ", 2)[0] + " events " + runID + " --json"
	cmd = exec.CommandContext(ctx, "bash", "-c", events)
	cmd.Env = processEnv(map[string]string{"USER": "newcomer"})
	got, err = cmd.CombinedOutput()
	require.NoError(t, err, string(got))
	var labels []string
	for _, line := range strings.Split(strings.TrimSpace(string(got)), "\n") {
		var e api.Event
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		labels = append(labels, e.Label)
	}
	for _, stage := range []string{"Searching merchants", "Checking details", "Checking coupons"} {
		require.Contains(t, labels, stage)
	}
}
