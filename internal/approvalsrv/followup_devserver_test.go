package approvalsrv

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// untilSnapshot waits until the run's snapshot satisfies ok and returns it.
func untilSnapshot(t *testing.T, runs *runclient.Client, runID string, ok func(api.RunSnapshot) bool) api.RunSnapshot {
	t.Helper()
	var snap api.RunSnapshot
	require.Eventually(t, func() bool {
		s, err := runs.Snapshot(context.Background(), runID)
		snap = s
		return err == nil && ok(s)
	}, time.Minute, 50*time.Millisecond)
	return snap
}

// approveOnceWaiting approves the run's action as alice, through the run's
// signal, once it waits.
func approveOnceWaiting(t *testing.T, runs *runclient.Client, runID string) {
	t.Helper()
	snap := untilSnapshot(t, runs, runID, func(s api.RunSnapshot) bool {
		return s.Run.Status == api.RunWaitingForUser && s.PendingAction != nil
	})
	require.NoError(t, runs.Decide(context.Background(), runID, api.ApprovalSignal{
		ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: "approve-" + runID,
		ArgsHash: snap.PendingAction.ArgsHash, Channel: channelAPI,
	}))
}

func ended(s api.RunSnapshot) bool { return s.Run.Status.IsTerminal() }

func TestAFollowUpOverHTTPPostsOneNewCommentAndItsReplayStartsNoOtherOnADevServer(t *testing.T) {
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "approvalsrv-followup"})
	runs := runclient.New(stack.Client(), runclient.Options{})
	cfg := testConfig()
	cfg.TaskQueue = "approvalsrv-followup"
	h := serve(t, cfg, Options{Runs: runs})

	first := h.start("first", []byte(`{"repo":"acme/widgets","pullNumber":1,"userId":"carol"}`))
	require.Equal(t, http.StatusAccepted, first.StatusCode)
	firstID := replyOf(t, first)["runId"]
	untilSnapshot(t, runs, firstID, func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser })
	early := h.start("early", followUpBody(t, map[string]any{"followUp": firstID}))
	require.Equal(t, http.StatusConflict, early.StatusCode, "a run still open cannot be followed up on")
	approveOnceWaiting(t, runs, firstID)
	require.Equal(t, api.RunCompleted, untilSnapshot(t, runs, firstID, ended).Run.Status)

	body := followUpBody(t, map[string]any{"followUp": firstID, "goal": "also say whether the cache is tested"})
	follow := h.start("f-1", body)
	replay := h.start("f-1", body)
	other := h.start("f-1", followUpBody(t, map[string]any{"followUp": firstID, "goal": "something else"}))

	require.Equal(t, http.StatusAccepted, follow.StatusCode)
	followID := replyOf(t, follow)["runId"]
	require.Equal(t, followID, replyOf(t, replay)["runId"])
	require.Equal(t, http.StatusUnprocessableEntity, other.StatusCode, "the key reused for another follow-up")
	require.Equal(t, 1, testkit.Executions(t, runs, followID))
	approveOnceWaiting(t, runs, followID)
	snap := untilSnapshot(t, runs, followID, ended)

	require.Equal(t, api.RunCompleted, snap.Run.Status, snap.Run.Error)
	require.Equal(t, firstID, snap.Run.ConversationID)
	comments := stack.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 2, "one new comment; the first is not posted again")
	require.True(t, strings.Contains(comments[1].Body, "also say whether the cache is tested"))
}
