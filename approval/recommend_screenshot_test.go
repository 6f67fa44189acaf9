package main

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
)

// TestBrowserTheRecommendersWaitingPageShowsItsPicksAsATableAndItsTarget
// opens the waiting page of a real recommender run (dev server, a worker
// with the recommend agent, the sandbox's merchant service) at 1280 px:
// the save reads as a request with its picks as a table, the target by
// name, and axe-core finds nothing serious. It saves
// recommend-waiting.png for a person to look at.
// startRecommender starts a worker with the recommend agent on the
// sandbox's merchant service, after faults, and a recommender run on it
// as `make up`'s line does, and waits until it asks alice to save.
func (s *stack) startRecommender(queue, runID string, faults ...ghsandbox.Fault) api.PendingAction {
	s.t.Helper()
	for _, f := range faults {
		require.NoError(s.t, s.sandbox.AddFault(f))
	}
	url, gh := testkit.ServeSandbox(s.t, s.sandbox)
	ext, err := agents.Recommender(url, nil)
	require.NoError(s.t, err)
	acts := &activities.Activities{GitHub: ghapi.NewAccess(gh, nil, s.sandbox.BotLogin()), Model: offline.NewReviewer()}
	acts.Tools, err = agents.BuiltinWith(acts.GitHub, ext)
	require.NoError(s.t, err)
	w := agentworker.NewWithActivities(s.temporal, queue, acts)
	require.NoError(s.t, w.Start())
	s.t.Cleanup(w.Stop)
	target, err := api.NewTarget(agents.TargetRecommendation, map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	require.NoError(s.t, err)
	in := api.RunInput{Agent: agents.Recommend, UserID: "carol", Approvers: []string{"alice"},
		Goal: "somewhere for two to talk, about 150, coupons welcome"}.WithTarget(target)
	_, err = s.temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: runID, TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(s.t, err)
	return s.waitingAction(runID)
}

func TestBrowserTheRecommendersWaitingPageShowsItsPicksAsATableAndItsTarget(t *testing.T) {
	s := startDevStack(t)
	const runID = "recommend-riverside-screenshot"
	s.startRecommender("approval-e2e-recommend", runID)

	ctx := newBrowser(t, nil)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 1000),
		chromedp.Navigate(s.approval.URL+"/runs/"+runID),
		chromedp.WaitVisible("[data-readable-preview] table.data"),
	))
	texts := pageTexts(t, ctx, "[data-readable-preview]", "h1", "main")
	require.Contains(t, texts["[data-readable-preview]"], "POST")
	require.Contains(t, texts["main"], "table for 2 in riverside (budget 150)", "the target by name")
	require.NotContains(t, texts["main"], "#0")
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
	require.NoError(t, err)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Empty(t, found, "axe-core on the recommender's waiting page")
	screenshot(t, ctx, "recommend-waiting.png")

	// At both widths the picks fit the page: no table wider than its
	// column, so no reason cut off behind a scroll bar.
	for _, width := range []int64{1280, 390} {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(width, 1000)))
		overflow, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll(".table-scroll")].filter(e => e.scrollWidth > e.clientWidth+1).map(e => e.getAttribute("aria-label"))`))
		require.NoError(t, err)
		require.Empty(t, overflow, "tables wider than the page at %d px", width)
	}
	found, err = chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Empty(t, found, "axe-core on the recommender's waiting page at 390 px")

	// The inbox's row of it, its excerpt open: the first picks fit too.
	for _, width := range []int64{1280, 390} {
		require.NoError(t, chromedp.Do(ctx,
			chromedp.EmulateViewport(width, 1000),
			chromedp.Navigate(s.approval.URL+"/"),
			chromedp.WaitVisible("details.excerpt summary"),
			chromedp.Click("details.excerpt summary"),
			chromedp.WaitVisible("details.excerpt table.data"),
		))
		overflow, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll(".table-scroll, main")].filter(e => e.scrollWidth > e.clientWidth+1).map(e => e.getAttribute("aria-label") || e.tagName)`))
		require.NoError(t, err)
		screenshot(t, ctx, fmt.Sprintf("recommend-inbox-%d.png", width))
		require.Empty(t, overflow, "the inbox wider than the page at %d px", width)
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
		require.NoError(t, err)
		found, err = chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
		require.NoError(t, err)
		require.Empty(t, found, "axe-core on the inbox at %d px", width)
	}
	screenshot(t, ctx, "recommend-waiting-390.png")
}

// TestBrowserAPartialRecommenderRunReadsPartialWithItsReasonOnItsPageAndInHistory
// runs the recommender with the coupon service down (503), approves its
// save, and reads the finished run's page and the history in Chromium:
// both say "Partial" and why, "get_coupons failed (coupons unavailable:
// …)", never a plain "Done". It saves recommend-partial.png.
func TestBrowserAPartialRecommenderRunReadsPartialWithItsReasonOnItsPageAndInHistory(t *testing.T) {
	s := startDevStack(t)
	const runID = "recommend-riverside-partial"
	action := s.startRecommender("approval-e2e-recommend-partial", runID,
		ghsandbox.Fault{Op: merchantsandbox.OpGetCoupons, Mode: ghsandbox.ModeStatus, Status: 503, Count: 20})
	code, answer := s.signedDecision(runID, action.ID, approvalsrv.Decision{Decision: "approve", Approver: "alice", RequestID: "partial-1"})
	require.Equal(t, http.StatusAccepted, code, answer)
	s.followEvents(runID)
	const reason = "get_coupons failed (coupons unavailable: the merchant service answered 503"

	ctx := newBrowser(t, nil)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 1000),
		chromedp.Navigate(s.approval.URL+"/runs/"+runID),
		chromedp.WaitVisible("#run-status.badge-partial"),
	))
	texts := pageTexts(t, ctx, "#run-status", "#run-status-detail", "#run-label")
	require.Equal(t, "Partial", texts["#run-status"])
	require.NotContains(t, texts, "#run-label", "no \"Done\" beside \"Partial\"")
	require.Contains(t, texts["#run-status-detail"], reason)
	screenshot(t, ctx, "recommend-partial.png")
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(390, 1000)))
	screenshot(t, ctx, "recommend-partial-390.png")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.approval.URL+"/runs"),
		chromedp.WaitVisible("table.history"),
	))
	history := pageTexts(t, ctx, "table.history")["table.history"]
	require.Contains(t, history, "Partial")
	require.Contains(t, history, reason)
}
