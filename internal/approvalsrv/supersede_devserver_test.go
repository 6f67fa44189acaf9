package approvalsrv

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// pullRig is a real worker on a dev server reviewing the sandbox's pull
// request acme/widgets#1 for an approval server that AGENTRUN_AUTO_REVIEW
// points at it; event applies a pull request event in the sandbox and
// requires its signed delivery to be accepted. hook, when set, stands
// between the sandbox and the webhook (it gets the webhook's URL and
// returns the one the sandbox delivers to).
type pullRig struct {
	stack *testkit.Stack
	sb    *ghsandbox.Server
	bases ghsandbox.Bases
	event func(ghsandbox.PullEvent) ghsandbox.PullEventAnswer
}

func startPullRig(t *testing.T, queue string, hook func(webhook string) string) pullRig {
	t.Helper()
	testkit.NeedsDevServer(t)
	stack := testkit.StartStack(t, testkit.StackOptions{})
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	testkit.StartSandboxWorker(t, stack.Client(), queue, sb)
	cfg := autoReview(t, "acme/widgets")
	cfg.TaskQueue = queue
	h := serve(t, cfg, Options{Runs: stack.Runs()})
	url := h.http.URL + "/github/webhook"
	if hook != nil {
		url = hook(url)
	}
	sb.SetWebhook(ghsandbox.Webhook{URL: url, Secret: webhookSecret})
	sandbox := httptest.NewServer(sb)
	t.Cleanup(sandbox.Close)
	bases := ghsandbox.Bases{Web: sandbox.URL, API: sandbox.URL}
	return pullRig{stack: stack, sb: sb, bases: bases, event: func(ev ghsandbox.PullEvent) ghsandbox.PullEventAnswer {
		t.Helper()
		a, err := sb.ApplyPullEvent(t.Context(), bases, "acme", "widgets", 1, ev)
		require.NoError(t, err)
		require.Equal(t, 202, a.Delivered, a.DeliveryError)
		return a
	}}
}

// A real worker reviews the sandbox's pull request from its opened
// delivery; a push while the review waits supersedes its action (expired,
// "superseded by <sha>"), posts nothing stale, completes naming the run
// that took over, and the review of the new head waits in its turn,
// reviewing only the new commit and naming the run whose draft it left.
func TestPushWhileTheReviewWaitsSupersedesItAndStartsTheNextOnADevServer(t *testing.T) {
	rig := startPullRig(t, "autoreview-supersede", nil)
	stack, sb, ctx := rig.stack, rig.sb, t.Context()

	opened := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	first := PullReviewRunID("acme/widgets", 1, opened.Head, api.DefaultAgent)
	waiting := stack.WaitForApproval(t, first)

	pushed := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Sender: "bob",
		Commits: []ghsandbox.PushedCommit{{Message: "Guard the cache", Files: []ghsandbox.FixtureFile{
			{Filename: "cache/guard.go", Status: "added", Patch: "@@ -0,0 +1,2 @@\n+package cache\n+// TODO: evict"}}}}})
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
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1, "only the review of the new head is posted")
	require.Contains(t, comments[0].Body, "Reviewed only the change since "+opened.Head[:7]+", whose review (run "+first+") still waited for approval when this push came: 1 commit")
	require.Contains(t, comments[0].Body, "cache/guard.go")
	require.NotContains(t, comments[0].Body, "cache/cache.go", "the superseded draft's files are not reviewed again")
	snap, err = stack.Snapshot(ctx, second)
	require.NoError(t, err)
	require.Equal(t, opened.Head, snap.Run.ReviewedHead)
	require.Equal(t, first, snap.Run.ReviewedDraft)
}

// After a review was posted, a push is reviewed for what it changed only
// (the compare API); a force-push after it gets a full review that says
// why. Real worker, dev server, sandbox deliveries.
func TestAPushIsReviewedForWhatChangedAndAForcePushInFullOnADevServer(t *testing.T) {
	rig := startPullRig(t, "autoreview-range", nil)
	stack, sb, ctx, event := rig.stack, rig.sb, t.Context(), rig.event
	reviewPosted := func(head string) string {
		t.Helper()
		runID := PullReviewRunID("acme/widgets", 1, head, api.DefaultAgent)
		stack.Approve(t, runID, stack.WaitForApproval(t, runID).ID)
		require.Equal(t, api.RunCompleted, stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, runID, "")).Status)
		comments := sb.Comments("acme", "widgets", 1)
		return comments[len(comments)-1].Body
	}

	opened := event(ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	first := reviewPosted(opened.Head)
	require.NotContains(t, first, "Reviewed only")
	require.Contains(t, first, "cache/cache.go")

	pushed := event(ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Commits: []ghsandbox.PushedCommit{{Message: "Guard the cache",
		Files: []ghsandbox.FixtureFile{{Filename: "cache/guard.go", Status: "added", Patch: "@@ -0,0 +1,2 @@\n+package cache\n+// TODO: evict old entries"}}}}})
	second := reviewPosted(pushed.Head)
	require.Contains(t, second, "Reviewed only the change since "+opened.Head[:7]+", the last head reviewed and posted: 1 commit")
	require.Contains(t, second, "cache/guard.go")
	require.NotContains(t, second, "cache/cache.go", "the files reviewed before are not reviewed again")

	forced := event(ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Force: true, Commits: []ghsandbox.PushedCommit{{Message: "Rewrite",
		Files: []ghsandbox.FixtureFile{{Filename: "cache/cache.go", Status: "added", Patch: "@@ -0,0 +1 @@\n+package cache"}}}}})
	third := reviewPosted(forced.Head)
	require.Contains(t, third, "Full review: "+pushed.Head[:7]+", the last head reviewed and posted, is no longer an ancestor of "+forced.Head[:7]+" (a force-push or a rebase)")
	require.Len(t, sb.Comments("acme", "widgets", 1), 3)
}

// A pull request closed while its review waits, then reopened at the same
// head, is reviewed again: the close ended that review before it posted,
// so "already reviewed" would leave the reopened pull request with none.
// The new run takes the same ID (signals, the page and a later push reach
// it), waits, and posts once when approved; a redelivered reopened finds
// it. A head whose review had posted is not reviewed again on reopen.
func TestAReopenedPullRequestIsReviewedAgainWhenItsCloseEndedTheReviewOnADevServer(t *testing.T) {
	rig := startPullRig(t, "autoreview-reopen", nil)
	stack, sb, ctx := rig.stack, rig.sb, t.Context()
	closePull := func() {
		t.Helper()
		a, err := sb.ApplyPullEvent(ctx, rig.bases, "acme", "widgets", 1, ghsandbox.PullEvent{Action: ghsandbox.PullClosed})
		require.NoError(t, err)
		require.Equal(t, 204, a.Delivered, a.DeliveryError)
	}

	opened := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	runID := PullReviewRunID("acme/widgets", 1, opened.Head, api.DefaultAgent)
	first := stack.WaitForApproval(t, runID)
	closePull()
	ended := stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, runID, ""))
	require.Equal(t, api.RunCompleted, ended.Status)

	reopened := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullReopened})
	require.Equal(t, opened.Head, reopened.Head)
	require.Contains(t, reopened.Response, "review of acme/widgets#1 at "+opened.Head[:7], "the reopened pull request is reviewed again, not answered 'already reviewed'")
	again := stack.WaitForApproval(t, runID)
	require.NotEqual(t, first.ID, again.ID)
	snap, err := stack.Snapshot(ctx, runID)
	require.NoError(t, err)
	require.Nil(t, snap.Cancel, "the ID names the new run")

	redelivered := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullReopened})
	require.Contains(t, redelivered.Response, "run "+runID)
	stack.Approve(t, runID, again.ID)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, runID, "")).Status)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)

	closePull()
	after := rig.event(ghsandbox.PullEvent{Action: ghsandbox.PullReopened})
	require.Contains(t, after.Response, "was already reviewed", "a head whose review posted is not reviewed again")
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
}
