package activities

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
)

// slowModel answers only once a heartbeat went out while it was thinking.
type slowModel struct{ beats *atomic.Int32 }

func (m slowModel) Next(ctx context.Context, _ []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	for m.beats.Load() < 1 {
		select {
		case <-ctx.Done():
			return api.ModelDecision{}, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return api.ModelDecision{Final: "done"}, nil
}

func TestModelNextHeartbeatsWhileTheModelThinks(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	var beats atomic.Int32
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	env.RegisterActivity(&Activities{Model: slowModel{&beats}, HeartbeatInterval: 5 * time.Millisecond})

	v, err := env.ExecuteActivity((&Activities{}).ModelNext, api.ModelInput{Conversation: []api.Message{{Role: api.RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	var d api.ModelDecision
	require.NoError(t, v.Get(&d))
	require.Equal(t, "done", d.Final)
	require.GreaterOrEqual(t, beats.Load(), int32(1))
}
