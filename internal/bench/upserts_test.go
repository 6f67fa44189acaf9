package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// A run started through runclient.Start carries its search attributes from
// the start's own visibility write, so its history shows one upsert per
// status change and none for what the start set.
func TestARunStartedByTheRunClientUpsertsOnlyItsStatusChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a dev server")
	}
	rig := startOverheadRig(t)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	spec := rig.newRun(rig.agentRun(), 10*time.Millisecond)
	pull := firstBenchPull + int(spec.seq%benchPulls)
	_, err := rig.runs.Start(ctx, runclient.StartRequest{RunID: spec.id, TaskQueue: agentRunQueue, Input: api.RunInput{
		Repo: benchRepoOwner + "/" + benchRepoName, PullNumber: pull, UserID: "bench", ToolTimeout: 10 * time.Second,
	}})
	require.NoError(t, err)
	waiting, err := awaitApprovalRequest(ctx, rig.runs, spec)
	require.NoError(t, err)
	require.NoError(t, rig.runs.Decide(ctx, spec.id, api.ApprovalSignal{
		ActionID: waiting.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: spec.id,
	}))
	var res api.RunResult
	require.NoError(t, rig.client.GetWorkflow(ctx, spec.id, "").Get(ctx, &res))
	require.Equal(t, api.RunCompleted, res.Status, res.Error)

	var statuses []string
	iter := rig.client.GetWorkflowHistory(ctx, spec.id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if attrs := ev.GetUpsertWorkflowSearchAttributesEventAttributes(); attrs != nil {
			fields := attrs.GetSearchAttributes().GetIndexedFields()
			require.NotContains(t, fields, api.SearchAttrConversation.GetName(), "the start set the conversation")
			statuses = append(statuses, fmt.Sprintf("%s", fields[api.SearchAttrStatus.GetName()].GetData()))
		}
	}
	require.Equal(t, []string{`"waiting_for_user"`, `"running"`, `"completed"`}, statuses)
	desc, err := rig.client.DescribeWorkflowExecution(ctx, spec.id, "")
	require.NoError(t, err)
	conv := desc.GetWorkflowExecutionInfo().GetSearchAttributes().GetIndexedFields()[api.SearchAttrConversation.GetName()]
	require.Equal(t, fmt.Sprintf("%q", spec.id), string(conv.GetData()), "a run without a conversation is its own")
}
