package runclient

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"
)

// With no worker, a run's last known state is its status search attribute
// and its inbox memo: the memo's actions count as waiting only while the
// status says the run waits, and the memo's run fields stay true.
func TestARunsLastKnownStateTrustsItsMemoOnlyAsFarAsItsStatus(t *testing.T) {
	memo := &api.InboxMemo{
		Run:   api.Run{ID: "memo-says-other", UserID: "carol", Approvers: []string{"alice"}, Status: api.RunRunning},
		Label: "Waiting for approval to post a comment",
		Actions: []api.PendingAction{
			{ID: "act-1", State: api.ActionWaiting},
			{ID: "act-2", State: api.ActionWaiting},
		},
	}

	waiting := LastKnown("run-1", Description{RunStatus: api.RunWaitingForUser, Inbox: memo})
	require.Equal(t, "run-1", waiting.Run.ID, "the run's own ID, whatever the memo says")
	require.Equal(t, api.RunWaitingForUser, waiting.Run.Status)
	require.Equal(t, "carol", waiting.Run.UserID)
	require.Equal(t, []string{"alice"}, waiting.Run.Approvers)
	require.Equal(t, memo.Label, waiting.Label)
	require.Equal(t, memo.Actions, waiting.Actions)
	require.NotNil(t, waiting.PendingAction)
	require.Equal(t, "act-2", waiting.PendingAction.ID, "the last action is the pending one")
	require.Same(t, &waiting.Actions[1], waiting.PendingAction)
	waiting.Actions[0].State = api.ActionApproved
	require.Equal(t, api.ActionWaiting, memo.Actions[0].State, "the snapshot's actions are its own")

	moved := LastKnown("run-1", Description{RunStatus: api.RunReconciling, Inbox: memo})
	require.Equal(t, api.RunReconciling, moved.Run.Status)
	require.Equal(t, "carol", moved.Run.UserID, "the run fields stay true")
	require.Empty(t, moved.Actions, "the run moved on: its memo's actions no longer wait")
	require.Nil(t, moved.PendingAction)
	require.Empty(t, moved.Label, "the memo's label was the wait's")

	none := LastKnown("run-1", Description{RunStatus: api.RunWaitingForUser, Inbox: &api.InboxMemo{Label: "waiting"}})
	require.Empty(t, none.Actions)
	require.Nil(t, none.PendingAction)

	bare := LastKnown("run-2", Description{RunStatus: api.RunRunning})
	require.Equal(t, api.RunSnapshot{Run: api.Run{ID: "run-2", Status: api.RunRunning}}, bare)
	fresh := LastKnown("run-3", Description{})
	require.Equal(t, api.RunSnapshot{Run: api.Run{ID: "run-3"}}, fresh)
}

// A run's last known state says who may act on it only when its inbox
// memo was read, and, once it ended, names the comments it posted.
func TestALastKnownReachKnowsWhoFromTheMemoAndWhatPostedOnceEnded(t *testing.T) {
	noAnswer := errors.New("no worker")
	running := enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	memo := &api.InboxMemo{Run: api.Run{UserID: "carol", Target: &api.Target{Kind: "support_queue"}}}

	named := LastKnownReach("run-1", Description{Status: running, RunStatus: api.RunRunning, Inbox: memo}, noAnswer)
	require.True(t, named.KnowsWho, "the memo names the requester, though the run has no repository")
	require.True(t, named.Open)
	require.Equal(t, "carol", named.Snapshot.Run.UserID)
	require.Same(t, noAnswer, named.NoAnswer)
	require.False(t, LastKnownReach("run-1", Description{Status: running, RunStatus: api.RunRunning}, noAnswer).KnowsWho)

	posted := []api.PostedOutcome{{StepID: "step-5", CommentID: 77}}
	ended := LastKnownReach("run-1", Description{Status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, RunStatus: api.RunCompleted, Inbox: memo, Posted: posted}, noAnswer)
	require.False(t, ended.Open)
	require.Equal(t, "completed", ended.EndedAs)
	require.Equal(t, posted, ended.Snapshot.Outcome.Posted)
}

func TestTheLastKnownLineSaysWhatTheRunWasDoing(t *testing.T) {
	require.Equal(t, "run run-3 has not been picked up by a worker yet", LastKnownLine(api.RunSnapshot{Run: api.Run{ID: "run-3"}}))
	require.Equal(t, "run run-1 was last known running", LastKnownLine(api.RunSnapshot{Run: api.Run{ID: "run-1", Status: api.RunRunning}}))
	require.Equal(t, "run run-1 was last known waiting_for_user: Waiting for approval",
		LastKnownLine(api.RunSnapshot{Run: api.Run{ID: "run-1", Status: api.RunWaitingForUser}, Label: "Waiting for approval"}))
}

func TestThePrecheckIsBoundedByItsOptionOrTheDefault(t *testing.T) {
	require.Equal(t, DefaultPrecheckTimeout, (&Client{}).precheckTimeout())
	require.Equal(t, 3*time.Second, DefaultPrecheckTimeout)
	require.Equal(t, time.Second, (&Client{opts: Options{PrecheckTimeout: time.Second}}).precheckTimeout())
	require.Equal(t, DefaultPrecheckTimeout, (&Client{opts: Options{PrecheckTimeout: -time.Second}}).precheckTimeout())
}
