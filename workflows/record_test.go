package workflows_test

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/openaifake"
	"github.com/agentrun/agentrun/internal/teststack"
	"github.com/agentrun/agentrun/workflows"
)

var record = flag.Bool("record", false, "re-record testdata/*.json from a real dev server")

// TestRecordHistories records the replay fixtures: a happy, a rejected, an
// expired and a reconciled run on a real dev server with the sandbox.
//
//	go test ./workflows -run TestRecordHistories -record
func TestRecordHistories(t *testing.T) {
	if !*record {
		t.Skip("recording only with -record")
	}
	const queue = "record-histories"
	stack := teststack.Start(t, teststack.Options{TaskQueue: queue})
	c := stack.Client()

	scenarios := []struct {
		name   string
		before func()
		decide func(c client.Client, id, actionID string)
		input  func(*workflows.RunInput)
		// openai, when set, runs the scenario on a worker whose model is the
		// OpenAI provider answering these recorded chat completions.
		openai []openaifake.Reply
	}{
		{name: "happy", decide: signal(workflows.DecisionApprove)},
		{name: "reject", decide: signal(workflows.DecisionReject)},
		{name: "expire", input: func(in *workflows.RunInput) { in.ApprovalTimeout = 2 * time.Second }},
		{
			name: "reconcile",
			before: func() {
				require.NoError(t, stack.Sandbox().AddFault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"}))
			},
			decide: signal(workflows.DecisionApprove),
		},
		{
			name:   "openai-happy",
			openai: []openaifake.Reply{openaifake.OK("pr_and_files.json"), openaifake.OK("comment.json"), openaifake.OK("final.json")},
			// Small enough that the calls after the first carry a reference.
			input:  func(in *workflows.RunInput) { in.InlineConversationBytes = 2048 },
			decide: signal(workflows.DecisionApprove),
		},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			in := workflows.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ToolTimeout: 5 * time.Second}
			if sc.input != nil {
				sc.input(&in)
			}
			if sc.before != nil {
				sc.before()
			}
			id := "record-" + sc.name
			taskQueue := queue
			if sc.openai != nil {
				taskQueue = queue + "-" + sc.name
				model, err := activities.NewOpenAIModel(activities.OpenAIConfig{
					BaseURL: openaifake.Start(t, sc.openai...).BaseURL(), APIKey: openaifake.APIKey, Model: "gpt-4.1-mini",
				})
				require.NoError(t, err)
				stack.StartWorker(t, taskQueue, model)
			}
			run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, workflows.WorkflowName, in)
			require.NoError(t, err)
			if sc.decide != nil {
				actionID := waitForAction(t, c, id)
				sc.decide(c, id, actionID)
			}
			var res workflows.RunResult
			require.NoError(t, run.Get(ctx, &res))
			require.Equal(t, workflows.RunCompleted, res.Status)
			if sc.openai != nil {
				requireModelCallsByReference(t, c, id)
			}
			writeHistory(t, c, id, filepath.Join("testdata", sc.name+".json"))
		})
	}
}

func signal(decision string) func(client.Client, string, string) {
	return func(c client.Client, id, actionID string) {
		err := c.SignalWorkflow(context.Background(), id, "", workflows.SignalApproval, workflows.ApprovalSignal{
			ActionID: actionID, Decision: decision, Approver: "alice", Reason: "recorded", RequestID: id,
		})
		if err != nil {
			panic(err)
		}
	}
}

func waitForAction(t *testing.T, c client.Client, id string) string {
	var actionID string
	require.Eventually(t, func() bool {
		v, err := c.QueryWorkflow(context.Background(), id, "", workflows.QueryRun)
		if err != nil {
			return false
		}
		var snap workflows.RunSnapshot
		if v.Get(&snap) != nil || snap.Run.Status != workflows.RunWaitingForUser {
			return false
		}
		actionID = snap.PendingAction.ID
		return true
	}, time.Minute, 50*time.Millisecond)
	return actionID
}

func writeHistory(t *testing.T, c client.Client, id, path string) {
	iter := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var h historypb.History
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		h.Events = append(h.Events, ev)
	}
	out, err := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(&h)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o644))
}

// requireModelCallsByReference checks that a run's later model calls carried a
// conversation reference, so that the recording covers the query path.
func requireModelCallsByReference(t *testing.T, c client.Client, id string) {
	v, err := c.QueryWorkflow(context.Background(), id, "", workflows.QueryRun)
	require.NoError(t, err)
	var snap workflows.RunSnapshot
	require.NoError(t, v.Get(&snap))
	byRef := 0
	for _, st := range snap.Steps {
		if st.Type == workflows.StepModelCall && strings.Contains(string(st.SafeInput), "conversationDigest") {
			byRef++
		}
	}
	require.Positive(t, byRef, "no model call carried a conversation reference")
}
