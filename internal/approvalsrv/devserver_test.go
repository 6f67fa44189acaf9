package approvalsrv

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/devserver"
	"github.com/agentrun/agentrun/runclient"
)

// stubRunInput is what the stub AgentRun of these tests is started with.
type stubRunInput struct {
	ActionID string
	// Wait keeps the run open until a decision arrives; otherwise it closes
	// at once.
	Wait bool
}

// stubAgentRun stands in for AgentRun where only its wire contract matters:
// it lists its action in AgentRunActionIds, answers the run query with that
// action waiting for alice, and returns the approver of the first decision.
func stubAgentRun(ctx workflow.Context, in stubRunInput) (string, error) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, api.SearchAttrActionIDs.ValueSet([]string{in.ActionID})); err != nil {
		return "", err
	}
	snap := waitingRun("alice")
	snap.Run.ID = workflow.GetInfo(ctx).WorkflowExecution.ID
	snap.PendingAction.ID = in.ActionID
	snap.PendingAction.ExpiresAt = workflow.Now(ctx).Add(time.Hour)
	snap.Actions[0] = *snap.PendingAction
	if err := workflow.SetQueryHandler(ctx, api.QueryRun, func() (api.RunSnapshot, error) { return snap, nil }); err != nil {
		return "", err
	}
	if !in.Wait {
		return "", nil
	}
	var sig api.ApprovalSignal
	workflow.GetSignalChannel(ctx, api.SignalApproval).Receive(ctx, &sig)
	return sig.Approver, nil
}

func TestCommentFindsItsRunThroughTheSearchAttributeOnARealServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server")
	}
	server := devserver.Start(t, devserver.Options{})
	c := server.Client()
	const queue = "approvalsrv-action-lookup"
	w := worker.New(c, queue, worker.Options{})
	w.RegisterWorkflowWithOptions(stubAgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	start := func(runID string, in stubRunInput) client.WorkflowRun {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: runID, TaskQueue: queue}, api.WorkflowName, in)
		require.NoError(t, err)
		return run
	}
	const openAction, closedAction = "act-0123456789abcdef", "act-fedcba9876543210"
	open := start("lookup-open", stubRunInput{ActionID: openAction, Wait: true})
	start("lookup-other", stubRunInput{ActionID: "act-00000000000000ff", Wait: true})
	require.NoError(t, start("lookup-closed", stubRunInput{ActionID: closedAction}).Get(ctx, nil))
	runs := runclient.New(c, runclient.Options{})
	// Visibility is eventually consistent: wait until both runs are indexed.
	require.Eventually(t, func() bool {
		_, errOpen := runs.RunByActionID(ctx, openAction)
		_, errClosed := runs.RunByActionID(ctx, closedAction)
		return errOpen == nil && errClosed == nil
	}, time.Minute, 50*time.Millisecond)

	closedRun, err := runs.RunByActionID(ctx, closedAction)
	require.NoError(t, err)
	require.Equal(t, "lookup-closed", closedRun, "a recently closed run is found too")
	_, err = runs.RunByActionID(ctx, "act-1111111111111111")
	require.ErrorIs(t, err, ErrRunNotFound)
	_, err = runs.RunByActionID(ctx, "act-1' OR '1'='1")
	require.Error(t, err, "an ID outside the rule never reaches the query")

	srv, err := New(testConfig(), Options{Runs: runs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	require.NoError(t, err)
	h := &harness{t: t, server: srv, http: httptest.NewServer(srv.Handler())}
	t.Cleanup(h.http.Close)
	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve "+openAction).payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode, replyOf(t, resp)["error"])
	var approver string
	require.NoError(t, open.Get(ctx, &approver))
	require.Equal(t, "alice", approver)
}
