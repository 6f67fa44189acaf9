package workflows

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
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

// A model call names its agent instead of recording the agent's tool
// schemas; one the server schedules sends, past the opening prompt, a
// reference instead of the conversation that the tool results already
// recorded. Once the offline model said it has nothing to stream, the
// later calls are local activities: their markers record the answer and
// nothing of the conversation.
func TestARunsModelCallsNameTheAgentAndReferTheConversation(t *testing.T) {
	var calls []api.ModelInput
	local := 0
	for _, ev := range recordedHistory(t, "happy.json") {
		if m := ev.GetMarkerRecordedEventAttributes(); m.GetMarkerName() == "LocalActivity" {
			var marker struct{ ActivityType string }
			require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["data"], &marker))
			if marker.ActivityType == api.ActivityModelNext {
				local++
				require.ElementsMatch(t, []string{"data", "result"}, slices.Collect(maps.Keys(m.GetDetails())))
				var d api.ModelDecision
				require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["result"], &d))
				require.True(t, d.Local)
			}
			continue
		}
		a := ev.GetActivityTaskScheduledEventAttributes()
		if a.GetActivityType().GetName() != api.ActivityModelNext {
			continue
		}
		var in api.ModelInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &in))
		calls = append(calls, in)
	}
	require.Len(t, calls, 1, "only the first call goes to the server")
	require.Equal(t, 2, local)
	for i, in := range calls {
		require.Equal(t, api.DefaultAgent, in.Agent, "call %d", i)
		require.Empty(t, in.Tools, "call %d", i)
	}
	require.Nil(t, calls[0].Ref, "the opening prompt fits inline")
	require.NotEmpty(t, calls[0].Conversation)
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
