package workflows_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// Temporary: records the holds workflow's history on the build before
// per-operator holds.
func TestRecordLegacyHoldsHistory(t *testing.T) {
	if !*record {
		t.Skip("recording only with -record")
	}
	const queue = "record-holds"
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue})
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := api.HoldsWorkflowID(queue)
	opts := client.StartWorkflowOptions{ID: id, TaskQueue: queue}
	send := func(name string, arg any) {
		_, err := c.SignalWithStartWorkflow(ctx, id, name, arg, opts, api.HoldsWorkflowName, api.HoldsState{})
		require.NoError(t, err)
	}
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	send(api.SignalHold, api.HoldSignal{Selector: agent, By: "alice", Reason: "bad deploy"})
	send(api.SignalHoldWaiter, api.HoldCheck{RunID: "record-held-1", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment, Targets: []string{"acme/widgets#1"}})
	send(api.SignalHold, api.HoldSignal{Selector: agent, By: "bob", Reason: "security incident"})
	send(api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Target: "Acme/Widgets"}, By: "carol", Reason: "repo frozen"})
	send(api.SignalHoldWaiter, api.HoldCheck{RunID: "record-held-2", Agent: "triage", Tool: api.ToolAddLabels, Targets: []string{"acme/widgets#1"}})
	send(api.SignalRelease, api.HoldSignal{Selector: agent, By: "alice", Reason: "fixed"})
	send(api.SignalHold, api.HoldSignal{Selector: api.HoldSelector{Target: "https://github.com/acme/widgets/pull/12"}, By: "dave", Reason: "url"})
	send(api.SignalRelease, api.HoldSignal{Selector: api.HoldSelector{Target: "Acme/Widgets"}, By: "carol", Reason: "thawed"})
	require.Eventually(t, func() bool {
		v, err := c.QueryWorkflow(ctx, id, "", api.QueryHolds)
		if err != nil {
			return false
		}
		var view api.HoldsView
		return v.Get(&view) == nil && len(view.Log) == 6
	}, time.Minute, 50*time.Millisecond)
	writeHistory(t, c, id, "", filepath.Join("testdata", "replay-holds", "build-a640875.json"))
}
