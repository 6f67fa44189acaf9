package workflows_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

const devEditedBody = "A shorter review, as alice wrote it on a dev server."

// waitForEditableAction waits until the run waits on an action other than skip.
func waitForEditableAction(t *testing.T, c client.Client, id, skip string) api.PendingAction {
	t.Helper()
	var pa api.PendingAction
	require.Eventually(t, func() bool {
		snap, err := querySnapshot(c, id)
		if err != nil || snap.Run.Status != api.RunWaitingForUser || snap.PendingAction == nil || snap.PendingAction.ID == skip {
			return false
		}
		pa = *snap.PendingAction
		return pa.State == api.ActionWaiting
	}, 2*time.Minute, 50*time.Millisecond, "the run never waited for a decision")
	return pa
}

// The edit travels in the action across every continue-as-new (one per
// step here), and the lost response is reconciled against the edited text.
func TestAnEditedApprovalOnADevServerPostsTheEditedTextOnceUnderALostResponse(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "edit-approval"})
	require.NoError(t, stack.Sandbox().AddFault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"}))
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := "edit-" + fmt.Sprint(time.Now().UnixNano())
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 5 * time.Second, HistoryThreshold: 1}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: stack.TaskQueue}, api.WorkflowName, in)
	require.NoError(t, err)

	pa := waitForEditableAction(t, c, id, "")
	require.True(t, pa.Editable)
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, api.ApprovalSignal{
		ActionID: pa.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: "r1", Channel: "test",
		ArgsHash: pa.ArgsHash, Args: []byte(`{"body":"` + devEditedBody + `"}`),
	}))
	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, api.RunCompleted, res.Status)

	comments := stack.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 1, "posted once, though its first response was lost")
	require.True(t, strings.HasPrefix(comments[0].Body, devEditedBody))
	snap, err := querySnapshot(c, id)
	require.NoError(t, err)
	require.GreaterOrEqual(t, snap.Run.Generation, 2, "the edit crossed a continue-as-new")
	require.Equal(t, "alice", snap.PendingAction.Edit.By)
	require.Equal(t, pa.ArgsHash, snap.PendingAction.Edit.From.ArgsHash)
	require.Equal(t, "alice", snap.Outcome.Posted[0].EditedBy)
}

func TestFeedbackOnADevServerLeadsToASecondProposalPostedOnce(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "respond-feedback"})
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	id := "respond-" + fmt.Sprint(time.Now().UnixNano())
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 5 * time.Second}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: stack.TaskQueue}, api.WorkflowName, in)
	require.NoError(t, err)

	first := waitForEditableAction(t, c, id, "")
	respond := api.ApprovalSignal{ActionID: first.ID, Decision: api.DecisionRespond, Approver: "alice", Reason: "shorter, please", RequestID: "r1", Channel: "test"}
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, respond))
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, respond), "a replay")
	second := waitForEditableAction(t, c, id, first.ID)
	require.NotEqual(t, first.Preview, second.Preview)
	require.Empty(t, stack.Sandbox().Comments("acme", "widgets", 1), "the first proposal is never posted")
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, api.ApprovalSignal{
		ActionID: second.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: "r2", Channel: "test", ArgsHash: second.ArgsHash,
	}))
	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res))

	comments := stack.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.True(t, strings.HasPrefix(comments[0].Body, second.Preview))
	snap, err := querySnapshot(c, id)
	require.NoError(t, err)
	require.Len(t, snap.Actions, 2)
	require.True(t, snap.Actions[0].Feedback)
	require.Equal(t, api.ActionApproved, snap.Actions[1].State)
	repeats := 0
	for _, e := range runEventsOf(t, c, id) {
		if e.Type == api.EventSignalIgnored && strings.Contains(e.Detail, "repeated request") {
			repeats++
		}
	}
	require.Equal(t, 1, repeats, "the replayed respond is recorded and changes nothing")
}

func runEventsOf(t *testing.T, c client.Client, id string) []api.Event {
	t.Helper()
	v, err := c.QueryWorkflow(context.Background(), id, "", api.QueryEvents, int64(0))
	require.NoError(t, err)
	var evs []api.Event
	require.NoError(t, v.Get(&evs))
	return evs
}
