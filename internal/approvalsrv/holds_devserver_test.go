package approvalsrv

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// The holds workflow's answer reaches the operator through the signed API:
// the hold past MaxHolds is refused 409, as is a release of nothing held,
// and neither changes the holds.
func TestTheHoldPastTheBoundAndAReleaseOfNothingAreRefused409OnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "approvalsrv-holds"})
	runs := runclient.New(stack.Client(), runclient.Options{CallTimeout: 30 * time.Second})
	cfg := testConfig()
	cfg.TaskQueue = stack.TaskQueue
	h := serve(t, cfg, Options{Runs: runs, Now: time.Now})

	hold := func(i int) *http.Response {
		body := holdBody(t, holdRequest{Selector: api.HoldSelector{Agent: fmt.Sprintf("agent-%d", i)}, By: "ops", Reason: "loop", RequestID: fmt.Sprintf("h%d", i)})
		return h.signedPost("/v1/holds", body, time.Now())
	}
	for i := range api.MaxHolds {
		resp := hold(i)
		require.Equal(t, http.StatusOK, resp.StatusCode, "hold %d", i)
		require.Equal(t, api.HoldOutcomePlaced, replyOf(t, resp)["state"])
	}
	resp := hold(api.MaxHolds)
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, map[string]string{"error": "refused: already 100 holds; release one first", "state": api.HoldOutcomeRefused}, replyOf(t, resp))

	body := holdBody(t, holdRequest{Selector: api.HoldSelector{Tool: api.ToolCreateIssue}, By: "ops", Reason: "nothing was held", RequestID: "r1"})
	resp = h.signedPost("/v1/holds/release", body, time.Now())
	require.Equal(t, http.StatusConflict, resp.StatusCode)
	require.Equal(t, map[string]string{"error": "nothing to release: no hold on tool create_issue", "state": api.HoldOutcomeNothingToRelease}, replyOf(t, resp))

	view, err := runs.Holds(t.Context(), stack.TaskQueue)
	require.NoError(t, err)
	require.Len(t, view.Active, api.MaxHolds)
	last := view.Log[len(view.Log)-2:]
	require.Equal(t, api.HoldRefused, last[0].Action)
	require.Equal(t, "agent-100", last[0].Selector.Agent, "the refusal is audited with what it named")
	require.Equal(t, api.HoldRefused, last[1].Action)
	require.Equal(t, "ops", last[1].By)
}
