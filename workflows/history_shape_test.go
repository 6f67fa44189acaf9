package workflows

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

func recordedHistory(t *testing.T, name string) []*historypb.HistoryEvent {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "replay", name))
	require.NoError(t, err)
	defer f.Close()
	h, err := client.HistoryFromJSON(f, client.HistoryJSONOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, h.Events)
	return h.Events
}

// A model call names its agent instead of recording the
// agent's tool schemas, and past the opening prompt it sends a reference
// instead of the conversation that the tool results already recorded.
func TestARunsModelCallsNameTheAgentAndReferTheConversation(t *testing.T) {
	var calls []api.ModelInput
	for _, ev := range recordedHistory(t, "happy.json") {
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a.GetActivityType().GetName() != "ModelNext" {
			continue
		}
		var in api.ModelInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in))
		calls = append(calls, in)
	}
	require.GreaterOrEqual(t, len(calls), 2)
	for i, in := range calls {
		require.Equal(t, api.DefaultAgent, in.Agent, "call %d", i)
		require.Empty(t, in.Tools, "call %d", i)
	}
	require.Nil(t, calls[0].Ref, "the opening prompt fits inline")
	require.NotEmpty(t, calls[0].Conversation)
	for i, in := range calls[1:] {
		require.NotNil(t, in.Ref, "call %d follows a tool result", i+1)
		require.Empty(t, in.Conversation, "call %d", i+1)
	}
}

// The wait for an approval publishes the action's ID with the status, in
// one upsert: a decision that names only the action finds the run by it
// from the moment the run waits.
func TestAWaitPublishesItsActionIDsWithItsStatusInOneUpsert(t *testing.T) {
	waits := 0
	for _, ev := range recordedHistory(t, "happy.json") {
		if ev.GetEventType() != enumspb.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES {
			continue
		}
		fields := ev.GetUpsertWorkflowSearchAttributesEventAttributes().GetSearchAttributes().GetIndexedFields()
		ids, hasIDs := fields[api.SearchAttrActionIDs.GetName()]
		if !hasIDs {
			continue
		}
		var status string
		require.Contains(t, fields, api.SearchAttrStatus.GetName(), "action IDs upserted apart from the status")
		require.NoError(t, converter.GetDefaultDataConverter().FromPayload(fields[api.SearchAttrStatus.GetName()], &status))
		require.Equal(t, string(api.RunWaitingForUser), status)
		var got []string
		require.NoError(t, json.Unmarshal(ids.GetData(), &got))
		require.Len(t, got, 1)
		require.Regexp(t, `^act-[0-9a-f]{16}$`, got[0])
		waits++
	}
	require.Equal(t, 1, waits)
}
