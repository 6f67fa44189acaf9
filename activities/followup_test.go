package activities

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// earlierRun answers the run and conversation queries of one run.
type earlierRun struct {
	snap         api.RunSnapshot
	conversation []api.Message
}

type jsonValue struct{ v any }

func (j jsonValue) HasValue() bool { return true }
func (j jsonValue) Get(into any) error {
	b, err := json.Marshal(j.v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}

func (e earlierRun) QueryWorkflow(_ context.Context, workflowID, _, queryType string, _ ...any) (converter.EncodedValue, error) {
	if workflowID != e.snap.Run.ID {
		return nil, serviceerror.NewNotFound("workflow not found")
	}
	if queryType == api.QueryRun {
		return jsonValue{e.snap}, nil
	}
	return jsonValue{e.conversation}, nil
}

func TestLoadFollowUpReadsTheEarlierRunItselfAndRefusesOneTooLongOrMissing(t *testing.T) {
	run := earlierRun{
		snap:         api.RunSnapshot{Run: api.Run{ID: "run-1", ConversationID: "run-1", Status: api.RunCompleted}},
		conversation: []api.Message{{Role: api.RoleUser, Content: "Review acme/widgets#1."}},
	}
	acts := &Activities{Runs: run}

	src, err := acts.LoadFollowUp(context.Background(), "run-1")
	require.NoError(t, err)
	require.Equal(t, run.snap.Run, src.Run)
	require.Equal(t, run.conversation, src.Conversation)

	_, err = acts.LoadFollowUp(context.Background(), "run-2")
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, err, &appErr)
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), "there is no run run-2 to follow up on")

	run.conversation = append(run.conversation, api.Message{Role: api.RoleTool, Content: strings.Repeat("x", api.MaxFollowUpConversationBytes)})
	_, err = (&Activities{Runs: run}).LoadFollowUp(context.Background(), "run-1")
	require.ErrorAs(t, err, &appErr)
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), "a follow-up carries: start a new run instead")

	_, err = (&Activities{}).LoadFollowUp(context.Background(), "run-1")
	require.ErrorContains(t, err, "this worker cannot read earlier runs")
}

// A follow-up of a follow-up carries the actions in doubt of the whole
// chain: the earlier run's own, and those it carried from the run before.
func TestLoadFollowUpCarriesTheActionsInDoubtTheEarlierRunCarried(t *testing.T) {
	first := api.InDoubtAction{RunID: "run-1", StepID: "step-2", CallID: "c1", Tool: api.ToolCreateIssueComment,
		OperationKey: "run-1:2", Target: "acme/widgets#1", Why: "abandoned by ops"}
	own := api.AgentStep{ID: "step-3", CallID: "c2", ToolName: api.ToolCreateIssueComment, OperationKey: "run-2:3",
		Status: api.StepOutcomeUnknown, SafeInput: json.RawMessage(`{"target":"acme/widgets#1"}`)}
	run := earlierRun{snap: api.RunSnapshot{
		Run:   api.Run{ID: "run-2", FollowUp: "run-1", ConversationID: "run-1", Status: api.RunCancelled},
		Steps: []api.AgentStep{own}, StepCount: 1, EarlierInDoubt: []api.InDoubtAction{first},
	}}

	src, err := (&Activities{Runs: run}).LoadFollowUp(context.Background(), "run-2")

	require.NoError(t, err)
	require.Equal(t, []api.InDoubtAction{api.InDoubtOf("run-2", own), first}, src.InDoubt)
}
