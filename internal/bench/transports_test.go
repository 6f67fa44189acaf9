package bench

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/workflows"
)

// countingClient counts the conversation queries the activities ask and
// the bytes of the messages those answer.
type countingClient struct {
	client.Client
	queries, bytes atomic.Int64
}

func (c *countingClient) QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error) {
	v, err := c.Client.QueryWorkflow(ctx, workflowID, runID, queryType, args...)
	if err != nil || queryType != api.QueryConversation {
		return v, err
	}
	c.queries.Add(1)
	return countedValue{EncodedValue: v, c: c}, nil
}

type countedValue struct {
	converter.EncodedValue
	c *countingClient
}

func (v countedValue) Get(valuePtr any) error {
	err := v.EncodedValue.Get(valuePtr)
	if messages, ok := valuePtr.(*[]api.Message); ok && err == nil {
		body, _ := json.Marshal(*messages)
		v.c.bytes.Add(int64(len(body)))
	}
	return err
}

// TestBenchConversationTransports runs the long run twice: on the worker
// as registration assembles it (the in-process handoff in front of the
// conversation query, whose store keeps each run's verified prefix), and
// on one with neither (every model call queries the whole conversation).
// It logs each one's step time and what the conversation query carried:
// AGENTRUN_BENCH=smoke go test ./internal/bench -run TestBenchConversationTransports -v -count=1
func TestBenchConversationTransports(t *testing.T) {
	env := requireRowBench(t)
	rig := startOverheadRig(t)
	ctx := context.Background()
	for _, transport := range []struct {
		name      string
		newWorker func(q *countingClient) func(acts *activities.Activities) worker.Worker
	}{
		{"handoff and cache", func(q *countingClient) func(*activities.Activities) worker.Worker {
			return func(acts *activities.Activities) worker.Worker {
				acts.Conversations = activities.NewQueryConversationStore(q, api.QueryConversation)
				return agentworker.NewWithActivities(rig.client, longRunQueue, acts)
			}
		}},
		{"query only", func(q *countingClient) func(*activities.Activities) worker.Worker {
			return func(acts *activities.Activities) worker.Worker {
				// The worker registration assembles, without the handoff
				// it would put in front of the store, and a store that
				// keeps nothing.
				w := worker.New(rig.client, longRunQueue, worker.Options{
					WorkerStopTimeout:            agentworker.DefaultStopTimeout,
					StickyScheduleToStartTimeout: agentworker.StickyScheduleToStartTimeout,
					MaxHeartbeatThrottleInterval: activities.ModelWritingInterval,
				})
				acts.Tools = agents.MustBuiltin(acts.GitHub)
				acts.Conversations = activities.NewQueryConversationStoreWithCache(q, api.QueryConversation, 0)
				acts.Runs = rig.client
				w.RegisterWorkflowWithOptions(workflows.New(acts.Tools).AgentRun, workflow.RegisterOptions{Name: api.WorkflowName})
				w.RegisterActivity(acts)
				return w
			}
		}},
	} {
		q := &countingClient{Client: rig.client}
		long, err := rig.measureLongRunOn(ctx, env.scale.longTurns, env.scale.longHistoryThreshold, 1, transport.newWorker(q))
		require.NoError(t, err, transport.name)
		require.NotZero(t, long.steps, transport.name)
		t.Logf("%s | %d-step run | ms per step first %d: %.1f, last %d: %.1f | conversation queries %d, %d bytes",
			transport.name, 2*env.scale.longTurns, long.windowSteps, long.firstMsPerStep, long.windowSteps, long.lastMsPerStep,
			q.queries.Load(), q.bytes.Load())
	}
}
