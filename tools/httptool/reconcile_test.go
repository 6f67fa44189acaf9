package httptool_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// A repeat that meets the same unknown (a 503 says nothing of the first
// request) is neither found nor "cannot tell": it is an error, which the
// run's look retries before it asks an operator.
func TestARepeatThatMeetsAnotherUnknownIsNeitherFoundNorSettled(t *testing.T) {
	s := newKeyedServer(t, fail503, fail503)
	tool := newTool(t, s)

	_, err := tool.Execute(context.Background(), callOf(orderArgs))
	require.Error(t, err)
	assert.Empty(t, errType(err))
	rec, err := tool.Reconcile(context.Background(), callOf(orderArgs))
	require.Error(t, err)
	assert.Empty(t, errType(err), "a plain error: the look is retried: %v", err)
	assert.Contains(t, err.Error(), "the outcome is still unknown")
	assert.Equal(t, api.ToolReconciliation{}, rec, "no outcome is claimed")
	requests, effects := s.counts()
	assert.Equal(t, 2, requests)
	assert.Zero(t, effects)
}

// A repeat cut off on its way is an error too: it found nothing, and says
// nothing of the first request.
func TestARepeatCutOffIsNeitherFoundNorSettled(t *testing.T) {
	s := newHoldingServer(t)
	tool := newTool(t, s)

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.arrived
		cancel()
	}()
	rec, err := tool.Reconcile(ctx, callOf(orderArgs))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, api.ToolReconciliation{}, rec)
}
