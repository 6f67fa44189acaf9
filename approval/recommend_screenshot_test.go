package main

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
)

// TestBrowserTheRecommendersWaitingPageShowsItsPicksAsATableAndItsTarget
// opens the waiting page of a real recommender run (dev server, a worker
// with the recommend agent, the sandbox's merchant service) at 1280 px:
// the save reads as a request with its picks as a table, the target by
// name, and axe-core finds nothing serious. It saves
// recommend-waiting.png for a person to look at.
func TestBrowserTheRecommendersWaitingPageShowsItsPicksAsATableAndItsTarget(t *testing.T) {
	s := startDevStack(t)
	const queue, runID = "approval-e2e-recommend", "recommend-riverside-screenshot"
	url, gh := testkit.ServeSandbox(t, s.sandbox)
	ext, err := agents.Recommender(url, nil)
	require.NoError(t, err)
	acts := &activities.Activities{GitHub: ghapi.NewAccess(gh, nil, s.sandbox.BotLogin()), Model: offline.NewReviewer()}
	acts.Tools, err = agents.BuiltinWith(acts.GitHub, ext)
	require.NoError(t, err)
	w := agentworker.NewWithActivities(s.temporal, queue, acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
	target, err := api.NewTarget(agents.TargetRecommendation, map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	require.NoError(t, err)
	in := api.RunInput{Agent: agents.Recommend, UserID: "carol", Approvers: []string{"alice"},
		Goal: "somewhere for two to talk, about 150, coupons welcome"}.WithTarget(target)
	_, err = s.temporal.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: runID, TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(t, err)
	s.waitingAction(runID)

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
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
	require.NoError(t, err)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Empty(t, found, "axe-core on the recommender's waiting page")
	screenshot(t, ctx, "recommend-waiting.png")
}
