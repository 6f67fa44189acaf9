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
)

// slowModel answers only once a heartbeat went out while it was thinking.
type slowModel struct{ beats *atomic.Int32 }

func (m slowModel) Next(ctx context.Context, _ []Message, _ []ToolSpec) (Decision, error) {
	for m.beats.Load() < 1 {
		select {
		case <-ctx.Done():
			return Decision{}, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	return Decision{Final: "done"}, nil
}

func TestModelNextHeartbeatsWhileTheModelThinks(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	var beats atomic.Int32
	env.SetOnActivityHeartbeatListener(func(*activity.Info, converter.EncodedValues) { beats.Add(1) })
	env.RegisterActivity(&Activities{Model: slowModel{&beats}, HeartbeatInterval: 5 * time.Millisecond})

	v, err := env.ExecuteActivity((&Activities{}).ModelNext, ModelInput{Conversation: []Message{{Role: RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	var d Decision
	require.NoError(t, v.Get(&d))
	require.Equal(t, "done", d.Final)
	require.GreaterOrEqual(t, beats.Load(), int32(1))
}
