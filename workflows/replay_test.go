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
)

// TestReplayRecordedHistories replays histories recorded from a real dev
// server (see record_test.go). A change to the workflow that alters its
// commands without a workflow.GetVersion gate fails here.
func TestReplayRecordedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range files {
		names[filepath.Base(f)] = true
	}
	for _, want := range []string{"happy.json", "reject.json", "expire.json", "reconcile.json", "openai-happy.json"} {
		require.True(t, names[want], "testdata/%s is missing; re-record with go test ./workflows -run TestRecordHistories -record", want)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			replayer := worker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(AgentRun, workflow.RegisterOptions{Name: WorkflowName})
			file, err := os.Open(f)
			require.NoError(t, err)
			defer file.Close()
			history, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			require.NoError(t, err)
			// Keys and action IDs derive from the workflow ID, so replay under
			// the recorded one (record_test.go names it after the file).
			id := "record-" + strings.TrimSuffix(filepath.Base(f), ".json")
			require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, history, worker.ReplayWorkflowHistoryOptions{
				OriginalExecution: workflow.Execution{ID: id},
			}))
		})
	}
}
