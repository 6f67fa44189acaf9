package approvalsrv

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// TestACancelledRunSaysWhoCancelledAndWhyOnEveryViewOnADevServer walks
// every view of one real run that alice cancelled while its comment waited:
// the run page, the history, the inbox (which no longer offers its
// action), `starter status` and `starter list`, the event stream and the
// Temporal UI's details. Each says alice and her reason; none says
// "expired".
func TestACancelledRunSaysWhoCancelledAndWhyOnEveryViewOnADevServer(t *testing.T) {
	const queue = "approvalsrv-cancel-views"
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue})
	runs := runclient.New(stack.Client(), runclient.Options{})
	cfg := testConfig()
	cfg.TaskQueue = queue
	h := serve(t, cfg, Options{Runs: runs, Permissions: everyoneReads{}, EventPollInterval: 10 * time.Millisecond})

	started := h.start("cancel-views", []byte(`{"repo":"acme/widgets","pullNumber":1,"userId":"carol"}`))
	require.Equal(t, http.StatusAccepted, started.StatusCode)
	runID := replyOf(t, started)["runId"]
	untilSnapshot(t, runs, runID, func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser && s.PendingAction != nil })
	ctx := context.Background()
	require.NoError(t, runs.Cancel(ctx, runID, api.CancelSignal{By: "alice", Reason: "wrong pull request", RequestID: "cancel-views", Channel: channelAPI}))
	snap := untilSnapshot(t, runs, runID, ended)
	require.Equal(t, api.RunCancelled, snap.Run.Status, snap.Run.Error)
	const who, why = "Cancelled by alice", "wrong pull request"

	page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun(runID)
	require.Contains(t, page, `badge-cancelled">`+who+`</span>`, "the run page")
	require.Contains(t, page, why)
	require.NotContains(t, page, "Expired")

	history := readAll(t, h.get("/runs", nil))
	require.Contains(t, history, who, "the history")
	require.Contains(t, history, why)

	require.Eventually(t, func() bool {
		inbox := readAll(t, h.get("/", map[string]string{"X-Forwarded-User": "alice"}))
		return !strings.Contains(inbox, runID)
	}, time.Minute, 50*time.Millisecond, "the inbox no longer offers the cancelled run's action")

	var status strings.Builder
	require.NoError(t, runview.Status(&status, runID, snap, nil))
	require.Contains(t, status.String(), "cancelled · "+who+": "+why, "starter status")

	require.Eventually(t, func() bool {
		rows, err := runs.List(ctx, runclient.ListFilter{Status: api.RunCancelled})
		for _, r := range rows {
			if err == nil && r.RunID == runID {
				return r.Standing.Words == who && r.Standing.Detail == why
			}
		}
		return false
	}, time.Minute, 50*time.Millisecond, "starter list reads who and why from the run's memo")

	events, err := runs.Events(ctx, runID, 0)
	require.NoError(t, err)
	var accepted []api.Event
	for _, e := range events {
		if e.Type == api.EventCancelAccepted {
			accepted = append(accepted, e)
		}
	}
	require.Len(t, accepted, 1, "the events")
	require.Contains(t, accepted[0].Detail, "alice")
	require.Contains(t, accepted[0].Detail, why)

	v, err := stack.Client().QueryWorkflow(ctx, runID, "", "__temporal_workflow_metadata")
	require.NoError(t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(t, v.Get(&md))
	require.Contains(t, md.GetCurrentDetails(), who+" ("+why+")", "the Temporal UI's details")
	require.NotContains(t, md.GetCurrentDetails(), "expired")
}
