package approvalsrv

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// A real worker reviews the sandbox's pull request from its opened
// delivery; a push while the review waits supersedes its action (expired,
// "superseded by <sha>"), posts nothing stale, completes naming the run
// that took over, and the review of the new head waits in its turn.
func TestPushWhileTheReviewWaitsSupersedesItAndStartsTheNextOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{})
	const queue = "autoreview-supersede"
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	testkit.StartSandboxWorker(t, stack.Client(), queue, sb)
	cfg := autoReview(t, "acme/widgets")
	cfg.TaskQueue = queue
	h := serve(t, cfg, Options{Runs: stack.Runs()})
	sb.SetWebhook(ghsandbox.Webhook{URL: h.http.URL + "/github/webhook", Secret: webhookSecret})
	sandbox := httptest.NewServer(sb)
	t.Cleanup(sandbox.Close)
	bases := ghsandbox.Bases{Web: sandbox.URL, API: sandbox.URL}
	ctx := context.Background()

	opened, err := sb.ApplyPullEvent(ctx, bases, "acme", "widgets", 1, ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	require.NoError(t, err)
	require.Equal(t, 202, opened.Delivered, opened.DeliveryError)
	first := PullReviewRunID("acme/widgets", 1, opened.Head, api.DefaultAgent)
	waiting := stack.WaitForApproval(t, first)

	pushed, err := sb.ApplyPullEvent(ctx, bases, "acme", "widgets", 1, ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Sender: "bob",
		Commits: []ghsandbox.PushedCommit{{Message: "Guard the cache", Files: []ghsandbox.FixtureFile{
			{Filename: "cache/guard.go", Status: "added", Patch: "@@ -0,0 +1,2 @@\n+package cache\n+// TODO: evict"}}}}})
	require.NoError(t, err)
	require.Equal(t, 202, pushed.Delivered, pushed.DeliveryError)
	second := PullReviewRunID("acme/widgets", 1, pushed.Head, api.DefaultAgent)

	res := stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, first, ""))
	require.Equal(t, api.RunCompleted, res.Status)
	require.Contains(t, res.Answer, "superseded by "+pushed.Head)
	require.Contains(t, res.Answer, "run "+second+" took over")
	snap, err := stack.Snapshot(ctx, first)
	require.NoError(t, err)
	require.Equal(t, api.LabelSuperseded, snap.Label)
	action := snap.Actions[len(snap.Actions)-1]
	require.Equal(t, waiting.ID, action.ID)
	require.Equal(t, api.ActionExpired, action.State)
	require.Equal(t, "superseded by "+pushed.Head, action.Reason)
	require.Empty(t, sb.Comments("acme", "widgets", 1), "nothing stale is posted")

	next := stack.WaitForApproval(t, second)
	require.NotEqual(t, waiting.ID, next.ID)
	stack.Approve(t, second, next.ID)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, second, "")).Status)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1, "only the review of the new head is posted")
}
