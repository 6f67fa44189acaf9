package approvalsrv

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// A run that ends while its page is open swaps the page's forms without a
// reload: the cancel form, kept with what was typed into it while the run
// was open, gives way to the follow-up form, and the action's headings
// turn to what was done. Before, the cancel form stayed and a press on it
// answered "Not sent: the action was already approved".
func TestBrowserRunEndingWhileItsPageIsOpenSwapsCancelForFollowUp(t *testing.T) {
	h := waitingHarness(t, nil)
	ctx := pageBrowser(t, h)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs/run-1"),
		chromedp.WaitVisible("form.cancel"),
		chromedp.SendKeys("#reason-cancel", "half typed"),
	))

	// An event while the run is still open: the panel is redrawn, the
	// cancel form is left as it was.
	checking := waitingRun()
	checking.Label = "Checking alice's permission"
	h.runs.put("run-1", checking)
	h.runs.appendEvents("run-1", api.Event{Sequence: 1, At: testNow, Type: api.EventStepStatus})
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#run-label").innerText === "Checking alice's permission"`))
	require.NoError(t, err)
	typed, err := chromedp.Run(ctx, chromedp.Value("#reason-cancel"))
	require.NoError(t, err)
	require.Equal(t, "half typed", typed)

	h.runs.put("run-1", completedRun())
	h.runs.appendEvents("run-1", api.Event{Sequence: 2, At: testNow, Type: api.EventRunStatus})
	h.runs.setEnded("run-1")
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitVisible("form.follow-up")))

	forms, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("form")].map(f => f.className)`))
	require.NoError(t, err)
	require.Equal(t, []string{"follow-up"}, forms, "no cancel form, no decision form on an ended run")
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries(["#run-status", "#action-heading", "#shown-heading"]
		.map(s => [s, document.querySelector(s).innerText]))`))
	require.NoError(t, err)
	require.Equal(t, map[string]string{
		"#run-status": "Done", "#action-heading": "Done, approved by alice", "#shown-heading": "As posted on acme/widgets#1",
	}, texts)
}
