package workflows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// streamingOffline is the offline reviewer behind the Stream method of a
// streaming provider (model/openai): ModelNext heartbeats what it writes.
type streamingOffline struct{ model.Model }

func (s streamingOffline) Stream(ctx context.Context, conversation []api.Message, tools []api.ToolSpec, writing func(string)) (api.ModelDecision, error) {
	d, err := s.Next(ctx, conversation, tools)
	if err == nil {
		writing(d.Final)
	}
	return d, err
}

// modelCallsOf counts a run's model calls the server scheduled as
// activities and those its workflow tasks recorded as local activities.
func modelCallsOf(t *testing.T, c client.Client, id string) (scheduled, local int) {
	t.Helper()
	it := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		require.NoError(t, err)
		if ev.GetActivityTaskScheduledEventAttributes().GetActivityType().GetName() == api.ActivityModelNext {
			scheduled++
		}
		m := ev.GetMarkerRecordedEventAttributes()
		if m.GetMarkerName() != "LocalActivity" {
			continue
		}
		var marker struct{ ActivityType string }
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(m.GetDetails()["data"], &marker))
		if marker.ActivityType == api.ActivityModelNext {
			local++
		}
	}
	return scheduled, local
}

// runBound are what differs between two runs posting on one pull request:
// the comment's ID and the action's, made from the run's.
var runBound = regexp.MustCompile(`2000000\d{3}|act-[0-9a-f]{16}`)

// stepShapes are a run's steps as a person reads them: type, tool, status,
// and what the step shows of its input and output, with the IDs of the comment and the action,
// the conversation's digest (which covers that ID) and the answer's "local"
// left out.
func stepShapes(t *testing.T, snap api.RunSnapshot) []string {
	t.Helper()
	var out []string
	for _, st := range snap.Steps {
		out = append(out, fmt.Sprintf("%s %s %s in=%s out=%s", st.Type, st.ToolName, st.Status,
			without(t, st.SafeInput, "conversationDigest"), without(t, st.SafeOutput, "local")))
	}
	return out
}

func without(t *testing.T, raw json.RawMessage, key string) string {
	t.Helper()
	if len(raw) == 0 {
		return ""
	}
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	if m, ok := v.(map[string]any); ok {
		delete(m, key)
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return runBound.ReplaceAllString(string(b), "ID")
}

func runApprovedOn(t *testing.T, c client.Client, queue, id string) api.RunSnapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 5 * time.Second}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(t, err)
	pa := waitForEditableAction(t, c, id, "")
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, api.ApprovalSignal{
		ActionID: pa.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: "r1", Channel: "test", ArgsHash: pa.ArgsHash,
	}))
	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	snap, err := querySnapshot(c, id)
	require.NoError(t, err)
	return snap
}

func conversationOf(t *testing.T, c client.Client, id string) string {
	t.Helper()
	v, err := c.QueryWorkflow(context.Background(), id, "", api.QueryConversation, 0)
	require.NoError(t, err)
	var messages []api.Message
	require.NoError(t, v.Get(&messages))
	b, err := json.Marshal(messages)
	require.NoError(t, err)
	return runBound.ReplaceAllString(string(b), "ID")
}

// On a dev server, a run on the offline model asks the server to schedule
// only its first model call; the others are markers of its workflow tasks.
// A run on a model that streams schedules every call. Both runs have the
// same steps, usage and conversation, and post one comment each.
func TestAnOfflineRunMakesItsLaterModelCallsLocallyWithTheSameStepsOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "model-local"})
	stack.StartWorker(t, "model-streams", streamingOffline{offline.NewReviewer()})
	c := stack.Client()
	stamp := fmt.Sprint(time.Now().UnixNano())
	local := runApprovedOn(t, c, "model-local", "model-local-"+stamp)
	streams := runApprovedOn(t, c, "model-streams", "model-streams-"+stamp)

	scheduled, marked := modelCallsOf(t, c, local.Run.ID)
	require.Equal(t, 1, scheduled, "only the call before the first answer goes to the server")
	require.Equal(t, 2, marked)
	scheduled, marked = modelCallsOf(t, c, streams.Run.ID)
	require.Equal(t, 3, scheduled, "a streaming model's calls stay activities, whose heartbeats show its text")
	require.Zero(t, marked)

	require.Equal(t, stepShapes(t, streams), stepShapes(t, local))
	require.Equal(t, streams.Run.Usage, local.Run.Usage)
	require.Equal(t, conversationOf(t, c, streams.Run.ID), conversationOf(t, c, local.Run.ID))
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), 2, "one comment per run")
}
