package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// A raw signal skips the approval server and its checks: on a real dev
// server, through the sandbox's permission endpoint, the run itself refuses
// mallory (read) and takes bob (write).
func TestReadOnlyUserCannotApproveThroughARawSignalOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "policy-raw-signal"})
	c := stack.Client()
	run := stack.StartReview(t, stack.TaskQueue)
	id := run.GetID()
	pa := stack.WaitForApproval(t, id)
	require.True(t, strings.HasPrefix(currentDetails(t, c, id),
		"Waiting for someone with write access to acme/widgets to approve a comment on acme/widgets#1, "), currentDetails(t, c, id))

	rawApprove(t, c, id, pa.ID, "mallory")
	require.Eventually(t, func() bool {
		events, err := stack.Events(context.Background(), id)
		return err == nil && len(eventsOf(events, "mallory has read permission on acme/widgets; deciding needs write")) == 1
	}, testkit.RunTimeout, 50*time.Millisecond, "mallory's approval was never refused")
	snap, err := stack.Snapshot(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, api.ActionWaiting, snap.PendingAction.State)
	require.Empty(t, stack.Sandbox().Comments("acme", "widgets", 1), "nothing is posted on mallory's word")

	rawApprove(t, c, id, pa.ID, "bob")
	res := stack.WaitForResult(t, run)
	require.Equal(t, api.RunCompleted, res.Status)
	comments := stack.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.NotNil(t, res.Outcome)
	require.Len(t, res.Outcome.Posted, 1)
	require.Equal(t, "bob", res.Outcome.Posted[0].ApprovedBy)
	require.Equal(t, comments[0].ID, res.Outcome.Posted[0].CommentID)
	require.NotEmpty(t, res.Outcome.Posted[0].URL)

	summaries := historySummaries(t, c, id)
	require.Contains(t, summaries, "Check mallory's permission on acme/widgets (decision on "+pa.ID+")")
	require.Contains(t, summaries, "Check bob's permission on acme/widgets (decision on "+pa.ID+")")
	require.Contains(t, summaries, "Read get_pull_request of acme/widgets#1")
	require.Contains(t, summaries, "Approval of "+pa.ID+" on acme/widgets#1 expires (24h)")
}

func rawApprove(t *testing.T, c client.Client, id, actionID, login string) {
	t.Helper()
	require.NoError(t, c.SignalWorkflow(context.Background(), id, "", api.SignalApproval, api.ApprovalSignal{
		ActionID: actionID, Decision: api.DecisionApprove, Approver: login, RequestID: id + "-" + login, Channel: "raw signal",
	}))
}

func eventsOf(events []api.Event, detail string) []api.Event {
	var out []api.Event
	for _, e := range events {
		if e.Type == api.EventSignalIgnored && e.Detail == detail {
			out = append(out, e)
		}
	}
	return out
}

// currentDetails is what the Temporal UI shows as the run's current details.
func currentDetails(t *testing.T, c client.Client, id string) string {
	t.Helper()
	v, err := c.QueryWorkflow(context.Background(), id, "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	return md.GetCurrentDetails()
}

// historySummaries lists the summaries of the run's activities and timers.
func historySummaries(t *testing.T, c client.Client, id string) []string {
	t.Helper()
	var out []string
	iter := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		// A local activity's summary is on its marker.
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, enumspb.EVENT_TYPE_TIMER_STARTED, enumspb.EVENT_TYPE_MARKER_RECORDED:
		default:
			continue
		}
		if p := ev.GetUserMetadata().GetSummary(); p != nil {
			var s string
			require.NoError(t, converter.GetDefaultDataConverter().FromPayload(p, &s))
			out = append(out, s)
		}
	}
	return out
}
