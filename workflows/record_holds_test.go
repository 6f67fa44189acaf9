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
	"github.com/agentrun/agentrun/runclient"
)

// TestRecordHoldsHistory records testdata/replay-holds/current.json, a
// generation of the holds workflow on the current code, which
// TestReplayHoldsHistories replays: holds and releases by update (placed,
// replaced, refused, released, nothing to release, all), one by an older
// client's signal, and runs waiting, woken, or still held. A history
// recorded on a released build beside it is never recorded again.
//
//	go test ./workflows -run TestRecordHoldsHistory -record
func TestRecordHoldsHistory(t *testing.T) {
	if !*record {
		t.Skip("recording only with -record")
	}
	const queue = "record-holds"
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue})
	c := stack.Client()
	rc := runclient.New(c, runclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	id := api.HoldsWorkflowID(queue)
	signal := func(name string, arg any) {
		_, err := c.SignalWithStartWorkflow(ctx, id, name, arg, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, api.HoldsWorkflowName, api.HoldsState{})
		require.NoError(t, err)
	}
	change := func(release bool, sig api.HoldSignal, want string) {
		sig.Channel = "test"
		send := rc.Hold
		if release {
			send = rc.Release
		}
		answer, err := send(ctx, queue, sig)
		require.NoError(t, err)
		require.Equal(t, want, answer.Outcome, "%+v", sig)
	}
	agent := api.HoldSelector{Agent: api.DefaultAgent}
	change(false, api.HoldSignal{Selector: agent, By: "alice", Reason: "bad deploy", RequestID: "1"}, api.HoldOutcomePlaced)
	signal(api.SignalHoldWaiter, api.HoldCheck{RunID: "record-held-1", Agent: api.DefaultAgent, Tool: api.ToolCreateIssueComment, Targets: []string{"acme/widgets#1"}})
	change(false, api.HoldSignal{Selector: agent, By: "bob", Reason: "security incident", RequestID: "2"}, api.HoldOutcomePlaced)
	change(false, api.HoldSignal{Selector: agent, By: "Bob", Reason: "still", RequestID: "3"}, api.HoldOutcomeReplaced)
	change(false, api.HoldSignal{Selector: api.HoldSelector{Target: "Acme/Widgets"}, By: "carol", Reason: "repo frozen", RequestID: "4"}, api.HoldOutcomePlaced)
	signal(api.SignalHoldWaiter, api.HoldCheck{RunID: "record-held-2", Agent: "triage", Tool: api.ToolAddLabels, Targets: []string{"acme/widgets#1"}})
	signal(api.SignalHoldWaiter, api.HoldCheck{RunID: "record-free", Agent: "triage", Tool: api.ToolAddLabels, Targets: []string{"acme/gadgets#1"}})
	change(true, api.HoldSignal{Selector: agent, By: "alice", Reason: "fixed", RequestID: "5"}, api.HoldOutcomeReleased)
	change(true, api.HoldSignal{Selector: agent, By: "alice", Reason: "again", RequestID: "6"}, api.HoldOutcomeNothingToRelease)
	change(false, api.HoldSignal{Selector: agent, By: "dave", Reason: "x", All: true, RequestID: "7"}, api.HoldOutcomeRefused)
	signal(api.SignalRelease, api.HoldSignal{Selector: api.HoldSelector{Target: "acme/widgets"}, By: "carol", Reason: "thawed"})
	change(true, api.HoldSignal{Selector: agent, By: "erin", Reason: "lifted", All: true, RequestID: "8"}, api.HoldOutcomeReleased)
	require.Eventually(t, func() bool {
		view, err := rc.Holds(ctx, queue)
		return err == nil && len(view.Log) == 9 && len(view.Active) == 0
	}, time.Minute, 50*time.Millisecond)
	writeHistory(t, c, id, "", filepath.Join("testdata", "replay-holds", "current.json"))
}
