package workflows

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// TestContinueAsNewKeepsQueriesAndSequencesUnbroken runs each generation in a
// fresh environment with the input the previous one continued with, the way
// the server would, approving whenever a generation waits.
func TestContinueAsNewKeepsQueriesAndSequencesUnbroken(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	in := demoInput()
	in.HistoryThreshold = 12
	var (
		last        *harness
		generations int
		sawWaiting  bool
	)
	for generations = 0; generations < 20; generations++ {
		h := newHarnessWith(t, sandbox)
		if in.Checkpoint != nil {
			// As the server starts a continued run: the checkpoint came from it.
			h.env.SetContinuedExecutionRunID(fmt.Sprintf("run-of-generation-%d", generations-1))
		}
		// The testsuite has no real history; this one is always "too long".
		h.env.SetCurrentHistoryLength(1000)
		h.env.RegisterDelayedCallback(func() {
			snap := h.snapshot()
			if snap.Run.Status == api.RunWaitingForUser {
				sawWaiting = true
				h.decide(snap.PendingAction.ID, api.DecisionApprove, "alice", "")
			}
		}, time.Minute)
		h.run(in)
		last = h
		err := h.env.GetWorkflowError()
		var can *workflow.ContinueAsNewError
		if !errors.As(err, &can) {
			require.NoError(t, err)
			break
		}
		var next api.RunInput
		require.NoError(t, converter.GetDefaultDataConverter().FromPayloads(can.Input, &next))
		require.NotNil(t, next.Checkpoint)
		require.Equal(t, h.snapshot().Run.LastCommittedSequence, next.Checkpoint.EventSequence)
		if h.snapshot().Run.Status == api.RunWaitingForUser {
			acts := next.Checkpoint.Actions
			require.NotEmpty(t, acts, "a generation that waits carries its pending approval")
			require.Equal(t, api.ActionWaiting, acts[len(acts)-1].State)
		}
		in = next
	}
	require.True(t, sawWaiting)
	snap := last.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.GreaterOrEqual(t, snap.Run.Generation, 2, "the small threshold forces several generations")
	require.Equal(t, snap.Run.Generation, generations)
	events := last.events()
	require.Equal(t, int64(1), events[0].Sequence, "the first generation's events are still served")
	requireLegalHistory(t, events)
	cans := eventsWith(events, func(e api.Event) bool { return e.Type == api.EventContinuedAsNew })
	require.Len(t, cans, generations)
	require.NotEmpty(t, eventsWith(cans, func(e api.Event) bool { return e.Status == string(api.RunWaitingForUser) }),
		"one generation continued as new while waiting for approval, carrying the pending action")
	for i, st := range snap.Steps {
		require.Equal(t, i+1, st.Sequence, "step sequences continue across generations")
	}
	require.Equal(t, 1, len(sandbox.Comments("acme", "widgets", 1)))
}
