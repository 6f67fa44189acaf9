package workflows_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// firstPostHeld proxies to the sandbox and holds the first comment create
// until land is closed, so that one post is in flight when the hold comes.
func firstPostHeld(t *testing.T, sandboxURL string, arrived chan<- struct{}, land <-chan struct{}) string {
	t.Helper()
	target, err := url.Parse(sandboxURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments") && posts.Add(1) == 1 {
			arrived <- struct{}{}
			<-land
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHoldOnAnAgentStopsApprovedRunsBeforeTheirPostsAndReleaseLetsEachPostOnceOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "holds-stack"})
	arrived, land := make(chan struct{}, 1), make(chan struct{})
	const queue = "holds-held"
	startHeldWorker(t, stack, queue, firstPostHeld(t, stack.GitHubURL, arrived, land))
	c := stack.Client()
	rc := runclient.New(c, runclient.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	const held = 5
	ids := make([]string, held+1)
	runs := make([]client.WorkflowRun, held+1)
	actions := make([]string, held+1)
	for i := range ids {
		ids[i] = testkit.Unique(t, fmt.Sprintf("hold-run-%d", i))
		in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 10 * time.Second}
		var err error
		runs[i], err = c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: ids[i], TaskQueue: queue}, api.WorkflowName, in)
		require.NoError(t, err)
	}
	for i, id := range ids {
		actions[i] = waitForSnapshot(t, c, id, func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser }).PendingAction.ID
	}
	approve := func(i int) {
		require.NoError(t, c.SignalWorkflow(ctx, ids[i], "", api.SignalApproval, api.ApprovalSignal{
			ActionID: actions[i], Decision: api.DecisionApprove, Approver: "alice", RequestID: "a1", Channel: "test",
		}))
	}

	approve(0)
	<-arrived // run 0's post is in flight when the hold comes
	hold := api.HoldSignal{Selector: api.HoldSelector{Agent: api.DefaultAgent}, By: "ops-oncall", Reason: "bad deploy", Channel: "test"}
	answer, err := rc.Hold(ctx, queue, hold)
	require.NoError(t, err)
	require.Equal(t, api.HoldOutcomePlaced, answer.Outcome)
	for i := 1; i <= held; i++ {
		approve(i)
	}
	for i := 1; i <= held; i++ {
		snap := waitForSnapshot(t, c, ids[i], func(s api.RunSnapshot) bool { return s.Label == "held by ops: bad deploy" })
		require.Equal(t, api.RunRunning, snap.Run.Status)
	}

	close(land) // the post sent before the hold finishes, once
	var res api.RunResult
	require.NoError(t, runs[0].Get(ctx, &res))
	require.Equal(t, api.RunCompleted, res.Status)
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), 1)
	for i := 1; i <= held; i++ {
		snap, err := querySnapshot(c, ids[i])
		require.NoError(t, err)
		require.Equal(t, "held by ops: bad deploy", snap.Label, "run %d went on while held", i)
		require.Equal(t, api.StepRunning, createStep(t, snap).Status)
		require.Empty(t, createStep(t, snap).ExternalResourceID)
	}

	release := api.HoldSignal{Selector: hold.Selector, By: "ops-lead", Reason: "fixed build deployed", Channel: "test"}
	answer, err = rc.Release(ctx, queue, release)
	require.NoError(t, err)
	require.Equal(t, api.HoldOutcomeNothingToRelease, answer.Outcome, "ops-lead placed no hold")
	require.Equal(t, []string{"ops-oncall"}, []string{answer.Others[0].By})
	release.All = true
	answer, err = rc.Release(ctx, queue, release)
	require.NoError(t, err)
	require.Equal(t, api.HoldOutcomeReleased, answer.Outcome)
	posted := map[string]bool{}
	for i := 1; i <= held; i++ {
		require.NoError(t, runs[i].Get(ctx, &res))
		require.Equal(t, api.RunCompleted, res.Status)
		snap, err := querySnapshot(c, ids[i])
		require.NoError(t, err)
		st := createStep(t, snap)
		require.Equal(t, api.StepSucceeded, st.Status)
		require.Equal(t, 1, st.Attempt)
		require.False(t, posted[st.ExternalResourceID], "two runs name one comment")
		posted[st.ExternalResourceID] = true
	}
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), held+1)

	view, err := rc.Holds(ctx, queue)
	require.NoError(t, err)
	require.Empty(t, view.Active)
	require.Len(t, view.Log, 3)
	require.Equal(t, api.HoldPlaced, view.Log[0].Action)
	require.Equal(t, "ops-oncall", view.Log[0].By)
	require.Equal(t, "bad deploy", view.Log[0].Reason)
	require.Equal(t, api.HoldRefused, view.Log[1].Action)
	require.Equal(t, api.HoldReleased, view.Log[2].Action)
	require.Equal(t, "ops-lead", view.Log[2].By)
	require.Equal(t, "releases the hold placed by ops-oncall: bad deploy", view.Log[2].Note)
}

// createStep is the run's one comment step.
func createStep(t *testing.T, snap api.RunSnapshot) api.AgentStep {
	t.Helper()
	for _, st := range snap.Steps {
		if st.Type == api.StepToolCall && st.ToolName == api.ToolCreateIssueComment {
			return st
		}
	}
	t.Fatalf("run %s has no %s step", snap.Run.ID, api.ToolCreateIssueComment)
	return api.AgentStep{}
}
