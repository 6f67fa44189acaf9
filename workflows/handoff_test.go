package workflows_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/registration"
)

// noQueries stands for the conversation query, which the testsuite cannot
// answer: every call is counted and fails.
type noQueries struct{ calls atomic.Int64 }

func (s *noQueries) Conversation(context.Context, api.ConversationRef) ([]api.Message, error) {
	s.calls.Add(1)
	return nil, context.Canceled
}

// Registered as the worker main registers it, the workflow hands every
// model call's conversation to the activities beside it: each call that
// refers to the conversation gets exactly the messages its reference names
// (ModelNext checks length and digest) without asking the run.
func TestAModelCallTakesTheConversationItsWorkflowHandedOver(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	srv := httptest.NewServer(sandbox)
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	queries := &noQueries{}
	registration.Register(env, &activities.Activities{GitHub: github.NewAccess(gh, nil, ""), Model: offline.NewReviewer(), Conversations: queries})
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "run-handoff"})
	snapshot := func() api.RunSnapshot {
		v, err := env.QueryWorkflow(api.QueryRun)
		require.NoError(t, err)
		var snap api.RunSnapshot
		require.NoError(t, v.Get(&snap))
		return snap
	}
	env.RegisterDelayedCallback(func() {
		snap := snapshot()
		require.NotNil(t, snap.PendingAction, "status %s", snap.Run.Status)
		env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice"})
	}, time.Minute)

	env.ExecuteWorkflow(api.WorkflowName, api.RunInput{
		Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ToolTimeout: 5 * time.Second, InlineConversationBytes: 1,
	})

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError())
	var res api.RunResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	byReference := 0
	for _, st := range snapshot().Steps {
		if st.Type == api.StepModelCall && strings.Contains(string(st.SafeInput), "conversationDigest") {
			byReference++
		}
	}
	require.Equal(t, 3, byReference, "every model call referred to the conversation")
	require.Zero(t, queries.calls.Load(), "no model call needed the query")
	marked := 0
	for _, c := range sandbox.Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, "<!-- agent-operation:") {
			marked++
		}
	}
	require.Equal(t, 1, marked)
}
