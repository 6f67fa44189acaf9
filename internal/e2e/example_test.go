package e2e

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// The example module's agent and tool, as a run names them.
const (
	exampleAgent = "release-notes"
	exampleTool  = "post_release_note"
)

// exampleBinary builds examples/customtool, a module of its own, once per
// test binary: Go refuses to build it if it imports an internal package, so
// this build is the proof that a user can write the worker it is.
func exampleBinary(t *testing.T) string {
	t.Helper()
	return builder.Program(t, "customtool", filepath.Join("examples", "customtool"), ".")
}

// TestExampleWorkerRunsItsOwnToolOnceAfterApproval starts the example's
// worker binary as the only worker of a queue and runs its release-notes
// agent twice: once plainly, once with the post's response lost after the
// sandbox made the comment. Each time the action waits for approval with the
// exact text, and after it exactly one comment exists, proved by its marker.
func TestExampleWorkerRunsItsOwnToolOnceAfterApproval(t *testing.T) {
	bin := exampleBinary(t)
	s := newStack(t)
	const queue = "agent-runs-example"
	p := StartProcess(t, ProcessSpec{Name: "customtool", Binary: bin, Env: map[string]string{
		"TEMPORAL_ADDRESS": s.Server.Address(),
		"AGENT_TASK_QUEUE": queue,
		"GITHUB_API_URL":   s.Sandbox.APIURL(),
		"GITHUB_TOKEN":     "e2e-token",
	}})
	WaitUntilPolling(t, s.Client(), queue, p)
	want := "**Release note** (feature) for acme/widgets#1\n\n> Cache widgets in memory"

	for _, tc := range []struct {
		runID string
		fault *ghsandbox.Fault
	}{
		{runID: "example-release-note"},
		{runID: "example-release-note-lost", fault: &ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse}},
	} {
		in := ReviewInput(toolTimeout)
		in.Agent = exampleAgent
		MustStartRun(t, s.Client(), queue, tc.runID, in)
		waiting := WaitForStatus(t, s.Client(), tc.runID, api.RunWaitingForUser, runTimeout)
		require.NotNil(t, waiting.PendingAction, tc.runID)
		require.Equal(t, exampleTool, waiting.PendingAction.ToolName)
		require.Equal(t, want, waiting.PendingAction.Preview, "the person approves the exact text")
		require.Empty(t, s.Sandbox.PostedComments(t)[tc.runID], "nothing is posted before approval")
		creates := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment))
		if tc.fault != nil {
			s.Sandbox.AddFaults(t, *tc.fault)
		}

		require.NoError(t, Approve(t.Context(), s.Client(), tc.runID, waiting.PendingAction.ID, "alice", "e2e-"+tc.runID))
		res := WaitForResult(t, s.Client(), tc.runID, runTimeout)

		require.Equal(t, api.RunCompleted, res.Status, tc.runID)
		posted := s.Sandbox.PostedComments(t)[tc.runID]
		require.Len(t, posted, 1, "%s: exactly one release note", tc.runID)
		snap, err := Snapshot(t.Context(), s.Client(), tc.runID)
		require.NoError(t, err)
		var step *api.AgentStep
		for i := range snap.Steps {
			if snap.Steps[i].Type == api.StepToolCall && snap.Steps[i].ToolName == exampleTool {
				step = &snap.Steps[i]
			}
		}
		require.NotNil(t, step, Describe(snap))
		require.Equal(t, api.StepSucceeded, step.Status)
		require.Equal(t, ghapi.MarkedBody(want, step.OperationKey), posted[0].GetBody(), "the approved text under the step's own marker")
		require.Equal(t, strconv.FormatInt(posted[0].GetID(), 10), step.ExternalResourceID)
		made := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[creates:]
		require.Len(t, made, 1, "%s: the comment was posted once, never again", tc.runID)
		if tc.fault != nil {
			require.Equal(t, ghsandbox.ModeDropResponse, made[0].Fault)
			require.True(t, HasEvent(MustEvents(t, s.Client(), tc.runID), api.EventRunStatus, string(api.RunReconciling)),
				"the lost response was reconciled")
			require.Contains(t, string(step.SafeOutput), `"alreadyExisted":true`)
		}
	}
}
