package workflows

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// corpus lists, per folder of testdata, the histories it must hold. The
// corpus is append-only: testdata/ was recorded before the security batch
// (securityChangeID) and replays on its old path; testdata/v2/ after it and
// before the policy batch (policyChangeID); testdata/v3/ on the policy batch;
// testdata/v4/ on the local permission check (localCheckChangeID); testdata/v5/
// on the tool registry (registryChangeID); testdata/v6/ on the perf batch
// (perfChangeID).
var corpus = map[string][]string{
	".":  recordedFirst,
	"v2": recordedOnSecurity,
	"v3": recordedOnPolicy,
	"v4": recordedOnPolicy,
	"v5": recordedOnRegistry,
	"v6": recordedOnRegistry,
}

// Each batch recorded the scenarios of the one before it and those it added.
var (
	recordedFirst      = []string{"happy.json", "reject.json", "expire.json", "reconcile.json", "openai-happy.json"}
	recordedOnSecurity = append(slices.Clone(recordedFirst), "happy.waiting.json",
		"not-created-retry.json", "cannot-tell-resolve.json", "continued.gen1.json", "continued.gen2.json",
		"openai-marker-refused.json", "refused-decisions.json")
	recordedOnPolicy   = append(slices.Clone(recordedOnSecurity), "policy-refused.json", "policy-queued.json", "read-failed.json")
	recordedOnRegistry = append(slices.Clone(recordedOnPolicy), "triage.json", "triage.waiting.json", "two-approvals.json")
)

// TestReplayRecordedHistories replays every history recorded from a real dev
// server (see record_test.go), of every version. A change to the workflow
// that alters its commands without a workflow.GetVersion gate fails here.
func TestReplayRecordedHistories(t *testing.T) {
	var files []string
	for _, pattern := range []string{"*.json", "v*/*.json"} {
		found, err := filepath.Glob(filepath.Join("testdata", pattern))
		require.NoError(t, err)
		files = append(files, found...)
	}
	have := map[string]bool{}
	for _, f := range files {
		rel, err := filepath.Rel("testdata", f)
		require.NoError(t, err)
		have[filepath.ToSlash(rel)] = true
	}
	for dir, names := range corpus {
		for _, name := range names {
			rel := filepath.ToSlash(filepath.Join(dir, name))
			require.True(t, have[rel], "testdata/%s is missing; record it with go test ./workflows -run TestRecordHistories -record", rel)
		}
	}
	for _, f := range files {
		rel, _ := filepath.Rel("testdata", f)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			replayer := worker.NewWorkflowReplayer()
			replayer.RegisterWorkflowWithOptions(AgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
			file, err := os.Open(f)
			require.NoError(t, err)
			defer file.Close()
			history, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
			require.NoError(t, err)
			// Keys and action IDs derive from the workflow ID, so replay under
			// the recorded one: record-<the file name up to its first dot>.
			scenario, _, _ := strings.Cut(filepath.Base(f), ".")
			require.NoError(t, replayer.ReplayWorkflowHistoryWithOptions(nil, history, worker.ReplayWorkflowHistoryOptions{
				OriginalExecution: workflow.Execution{ID: "record-" + scenario},
			}))
		})
	}
}
