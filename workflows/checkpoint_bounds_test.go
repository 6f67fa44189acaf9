package workflows

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// TestCheckpointCompactsOnlyFinishedStepsOlderThanTheNewest200 pins what a
// continue-as-new carries of a long run: the newest compactAfterSteps steps
// keep their input and output, older finished ones drop them, and an older
// step still in flight keeps them (it may be resumed from them).
func TestCheckpointCompactsOnlyFinishedStepsOlderThanTheNewest200(t *testing.T) {
	w := &agentRun{}
	total := compactAfterSteps + 3
	for i := 0; i < total; i++ {
		st := &api.AgentStep{ID: fmt.Sprintf("step-%d", i+1), Sequence: i + 1, Type: api.StepToolCall, Status: api.StepSucceeded,
			SafeInput: json.RawMessage(`{"in":1}`), SafeOutput: json.RawMessage(`{"out":1}`)}
		w.Steps = append(w.Steps, st)
	}
	w.Steps[1].Status = api.StepOutcomeUnknown

	cp := w.checkpoint()

	require.Len(t, cp.Steps, total, "every step is carried")
	require.Nil(t, cp.Steps[0].SafeInput, "the oldest finished step is compacted")
	require.Nil(t, cp.Steps[0].SafeOutput)
	require.NotNil(t, cp.Steps[1].SafeInput, "a step still in flight keeps its input")
	require.Nil(t, cp.Steps[2].SafeInput, "the last step older than the newest 200 is compacted")
	require.NotNil(t, cp.Steps[3].SafeInput, "the oldest of the newest 200 keeps its input")
	require.NotNil(t, cp.Steps[3].SafeOutput)
	require.NotNil(t, cp.Steps[total-1].SafeOutput)
	require.NotNil(t, w.Steps[0].SafeInput, "compaction copies; the live step is untouched")
}

// TestCheckpointCarriesExactlyTheNewest1000Events: the events a checkpoint
// carries are bounded, and the ones dropped are the oldest.
func TestCheckpointCarriesExactlyTheNewest1000Events(t *testing.T) {
	for _, n := range []int{maxRetainedEvents, maxRetainedEvents + 1} {
		w := &agentRun{}
		for i := 1; i <= n; i++ {
			w.Events = append(w.Events, api.Event{Sequence: int64(i)})
		}

		cp := w.checkpoint()

		require.Len(t, cp.Events, min(n, maxRetainedEvents))
		require.Equal(t, int64(n), cp.Events[len(cp.Events)-1].Sequence, "the newest event is kept")
		require.Equal(t, int64(n-len(cp.Events)+1), cp.Events[0].Sequence, "the oldest are the ones dropped")
	}
}

// TestACompactedStepInDoubtKeepsItsTarget: an abandoned action older than
// the newest 200 steps drops its input when the run continues as new, but
// what a follow-up and an approver read of it (api.InDoubtOf) still names
// the target it may have been made on.
func TestACompactedStepInDoubtKeepsItsTarget(t *testing.T) {
	steps := []*api.AgentStep{{ID: "step-1", Status: api.StepFailed, OperationKey: "r:1", ToolName: api.ToolCreateIssueComment,
		Error: api.AbandonedBy + "ops", SafeInput: json.RawMessage(`{"target":"acme/widgets#1","preview":"LGTM"}`)}}
	for i := 0; i < compactAfterSteps; i++ {
		steps = append(steps, &api.AgentStep{ID: fmt.Sprintf("step-%d", i+2), Status: api.StepSucceeded})
	}

	cp := compacted(api.Checkpoint{Steps: steps}, compactAfterSteps, maxRetainedEvents)

	before, after := api.InDoubtOf("r", *steps[0]), api.InDoubtOf("r", *cp.Steps[0])
	require.Equal(t, "acme/widgets#1", after.Target, "answer %q", after.Answer())
	require.Equal(t, before, after)
	require.NotContains(t, string(cp.Steps[0].SafeInput), "LGTM", "the rest of its input is left behind")
}
