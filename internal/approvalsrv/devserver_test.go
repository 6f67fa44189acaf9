package approvalsrv

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

func TestCommentFindsItsRunThroughTheSearchAttributeOnARealServer(t *testing.T) {
	runs, queue := testkit.StartStub(t, "approvalsrv-action-lookup")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const openAction, closedAction = "act-0123456789abcdef", "act-fedcba9876543210"
	open := testkit.StartStubRun(t, runs, queue, "lookup-open", "", testkit.Input{ActionID: openAction, ExpiresIn: time.Hour, Approvers: []string{"alice"}})
	testkit.StartStubRun(t, runs, queue, "lookup-other", "", testkit.Input{ActionID: "act-00000000000000ff", ExpiresIn: time.Hour})
	require.NoError(t, testkit.StartStubRun(t, runs, queue, "lookup-closed", "", testkit.Input{ActionID: closedAction, ExpiresIn: time.Hour, Close: true}).Get(ctx, nil))
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
	require.ErrorIs(t, err, errRunNotFound)
	_, err = runs.RunByActionID(ctx, "act-1' OR '1'='1")
	require.Error(t, err, "an ID outside the rule never reaches the query")

	// The stub's action expires an hour from now: the server keeps the real clock.
	h := serve(t, testConfig(), Options{Runs: runs, Now: time.Now})
	resp := h.deliver("issue_comment", "d-1", newComment("alice", "/agentrun approve "+openAction).payload(t))

	require.Equal(t, http.StatusAccepted, resp.StatusCode, replyOf(t, resp)["error"])
	var approver string
	require.NoError(t, open.Get(ctx, &approver))
	require.Equal(t, "alice", approver)
}
