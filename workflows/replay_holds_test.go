package workflows

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// TestReplayHoldsHistories replays the holds workflow's recorded histories
// on the current code. The holds workflow is not pinned (it moves to each
// new build, registration.Register), so a new build replays the generation
// an older one began: current.json, recorded from the current code
// (TestRecordHoldsHistory), guards against an accidental change of its
// commands; from the first release on, a generation recorded on the
// released build is kept beside it, as it was recorded, while the change
// is gated with workflow.GetVersion (docs/architecture.md, Versioning).
func TestReplayHoldsHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "replay-holds", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			replayer := worker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(builtin.Holds, workflow.RegisterOptions{Name: api.HoldsWorkflowName})
			file, err := os.Open(f)
			require.NoError(t, err)
			defer file.Close()
			history, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			require.NoError(t, err)
			require.NoError(t, replayer.ReplayWorkflowHistory(nil, history))
		})
	}
}
