package workflows

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// scenarios are the histories testdata/replay must hold, one per scenario
// of record_test.go (a chain's runs as .gen1, .gen2; a wait cut as .waiting).
var scenarios = []string{
	"happy", "happy.waiting", "reject", "expire", "reconcile", "openai-happy",
	"not-created-retry", "cannot-tell-resolve", "continued.gen1", "continued.gen2",
	"openai-marker-refused", "refused-decisions", "policy-refused", "policy-queued",
	"read-failed", "triage", "triage.waiting", "two-approvals", "batch",
	"edited", "respond", "followup", "recommend", "recommend-coupons-down", "check-run",
	"supersede-edit",
}

// TestReplayRecordedHistories replays the corpus, recorded from a real dev
// server with the current code (record_test.go). It guards that code against
// accidental non-determinism: a change that alters a recorded scenario's
// commands fails here until the corpus is recorded again, on purpose.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "replay", "*.json"))
	require.NoError(t, err)
	have := map[string]bool{}
	for _, f := range files {
		have[strings.TrimSuffix(filepath.Base(f), ".json")] = true
	}
	for _, name := range scenarios {
		require.True(t, have[name], "testdata/replay/%s.json is missing; record it with go test ./workflows -run TestRecordHistories -record", name)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			// Keys and action IDs derive from the workflow ID, so replay under
			// the recorded one: record-<the file name up to its first dot>.
			scenario, _, _ := strings.Cut(filepath.Base(f), ".")
			replayer := worker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(replayedWorkflow(t, scenario), workflow.RegisterOptions{Name: api.WorkflowName})
			file, err := os.Open(f)
			require.NoError(t, err)
			defer file.Close()
			history, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			require.NoError(t, err)
			require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, history, worker.ReplayWorkflowHistoryOptions{
				OriginalExecution: workflow.Execution{ID: "record-" + scenario},
			}))
		})
	}
}

// replayedWorkflow is the workflow a recorded scenario ran on: the
// recommender's (recommend*) were recorded on a worker whose registry adds
// the recommend agent, every other on the built-in registry. Its tools never
// run here, so the merchant service's address is only a name.
func replayedWorkflow(t *testing.T, scenario string) func(workflow.Context, api.RunInput) (api.RunResult, error) {
	if !strings.HasPrefix(scenario, agents.Recommend) {
		return builtin.AgentRun
	}
	ext, err := agents.Recommender("http://merchants.invalid", nil)
	require.NoError(t, err)
	reg, err := agents.BuiltinWith(nil, ext)
	require.NoError(t, err)
	return New(reg).AgentRun
}
