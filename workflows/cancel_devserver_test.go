package workflows_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
)

// heldPosts proxies to the sandbox and holds each comment create until
// release is closed, so that a test acts while the post is in flight.
func heldPosts(t *testing.T, sandboxURL string, arrived chan<- struct{}, release <-chan struct{}) string {
	t.Helper()
	target, err := url.Parse(sandboxURL)
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/comments") {
			select {
			case arrived <- struct{}{}:
			default:
			}
			<-release
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func startHeldWorker(t *testing.T, stack *testkit.Stack, queue, githubURL string) {
	t.Helper()
	gh, err := github.NewClient(githubURL, "sandbox-token")
	require.NoError(t, err)
	w := worker.New(stack.Client(), queue, worker.Options{})
	agentworker.Register(w, agentworker.WithConversationStore(stack.Client(), &activities.Activities{GitHub: github.NewAccess(gh, nil, ""), Model: offline.NewReviewer()}))
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

func waitForSnapshot(t *testing.T, c client.Client, id string, ok func(api.RunSnapshot) bool) api.RunSnapshot {
	t.Helper()
	var snap api.RunSnapshot
	require.Eventually(t, func() bool {
		s, err := querySnapshot(c, id)
		snap = s
		return err == nil && ok(s)
	}, 2*time.Minute, 50*time.Millisecond)
	return snap
}

func TestCancelWhileThePostsAnswerIsLostEndsCancelledWithTheStepSucceededAndOneCommentOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "cancel-stack"})
	require.NoError(t, stack.Sandbox().AddFault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse}))
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	const queue = "cancel-held"
	startHeldWorker(t, stack, queue, heldPosts(t, stack.GitHubURL, arrived, release))
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	id := fmt.Sprintf("cancel-in-flight-%d", time.Now().UnixNano())
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 10 * time.Second}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(t, err)
	snap := waitForSnapshot(t, c, id, func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser })
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalApproval, api.ApprovalSignal{
		ActionID: snap.PendingAction.ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: "a1", Channel: "test",
	}))
	<-arrived // the post is in flight, held before the sandbox sees it
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalCancel, api.CancelSignal{By: "carol", Reason: "wrong pull request", RequestID: "c1", Channel: "test"}))
	waitForSnapshot(t, c, id, func(s api.RunSnapshot) bool { return s.Cancel != nil })
	close(release) // the sandbox posts, then loses the answer

	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, api.RunCancelled, res.Status)
	require.Len(t, stack.Sandbox().Comments("acme", "widgets", 1), 1)
	final, err := querySnapshot(c, id)
	require.NoError(t, err)
	require.Equal(t, api.RunCancelled, final.Run.Status)
	require.Equal(t, "carol", final.Cancel.By)
	for _, st := range final.Steps {
		if st.Type == api.StepToolCall && st.ToolName == api.ToolCreateIssueComment {
			require.Equal(t, api.StepSucceeded, st.Status, st.Error)
		}
	}
	require.Len(t, final.Outcome.Posted, 1)
}

func TestCancelWhileWaitingForApprovalEndsCancelledWithNothingPostedOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "cancel-wait-stack"})
	c := stack.Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	id := fmt.Sprintf("cancel-waiting-%d", time.Now().UnixNano())
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", Approvers: []string{"alice"}, ToolTimeout: 10 * time.Second}
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: stack.TaskQueue}, api.WorkflowName, in)
	require.NoError(t, err)
	waitForSnapshot(t, c, id, func(s api.RunSnapshot) bool { return s.Run.Status == api.RunWaitingForUser })
	// Forged past the API straight to the signal: the run refuses it too.
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalCancel, api.CancelSignal{By: "mallory", Reason: "mine", RequestID: "m1", Channel: "test"}))
	require.NoError(t, c.SignalWorkflow(ctx, id, "", api.SignalCancel, api.CancelSignal{By: "alice", Reason: "superseded", RequestID: "c1", Channel: "test"}))
	// The repeat may reach a run that already ended on the first: the server
	// then refuses it, which is as harmless as the run ignoring it.
	var ended *serviceerror.NotFound
	if err := c.SignalWorkflow(ctx, id, "", api.SignalCancel, api.CancelSignal{By: "alice", Reason: "superseded", RequestID: "c1", Channel: "test"}); err != nil {
		require.ErrorAs(t, err, &ended, "a repeated cancel is refused only because the run ended")
	}

	var res api.RunResult
	require.NoError(t, run.Get(ctx, &res))
	require.Equal(t, api.RunCancelled, res.Status)
	require.Empty(t, stack.Sandbox().Comments("acme", "widgets", 1))
	final, err := querySnapshot(c, id)
	require.NoError(t, err)
	require.Equal(t, "alice", final.Cancel.By)
	require.Equal(t, api.ActionExpired, final.PendingAction.State)
	require.Equal(t, "run cancelled by alice: superseded", final.PendingAction.Reason)
	var ignored []string
	accepted := 0
	var events []api.Event
	v, err := c.QueryWorkflow(ctx, id, "", api.QueryEvents, int64(0))
	require.NoError(t, err)
	require.NoError(t, v.Get(&events))
	for _, e := range events {
		switch e.Type {
		case api.EventSignalIgnored:
			ignored = append(ignored, e.Detail)
		case api.EventCancelAccepted:
			accepted++
		}
	}
	require.Equal(t, 1, accepted, "the repeated request is accepted once at most")
	require.Contains(t, ignored, "mallory may not cancel this run: only its requester or an approver may")
}
