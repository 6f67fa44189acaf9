package main

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// A real run, as a person decides it on its page: alice sends the model's
// review back with feedback, edits the review it proposes again in the
// body's text area (no JSON) and approves. One comment with her text is
// posted, and the finished run's page keeps the three versions: the first
// proposal with its feedback, the second proposal, and her edit.
func TestBrowserFeedbackThenAnEditInTheTextAreaPostsOneCommentAndKeepsThreeVersions(t *testing.T) {
	s := startStack(t)
	const runID = "review-browser-edit"
	first := s.startReview(runID, "alice")
	ctx := newBrowser(t, map[string]any{identityHeader: "alice"})
	require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(1280, 1000)))
	s.openRun(ctx, runID)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys("#reason", "shorter"),
		chromedp.Click("button.respond"),
	))
	var second api.PendingAction
	require.Eventually(t, func() bool {
		snap, ok := s.snapshot(runID)
		if ok && snap.PendingAction != nil && snap.PendingAction.ID != first.ID && snap.PendingAction.State == api.ActionWaiting {
			second = *snap.PendingAction
			return true
		}
		return false
	}, waitLong, 50*time.Millisecond, "the model never proposed again")
	require.True(t, second.Editable, "the review may be edited")

	const edited = "## Review\n\nPlease remove the debug print and the AWS key."
	s.openRun(ctx, runID)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click("details.edit > summary"),
		chromedp.WaitVisible("textarea[name='arg.text.body']"),
	))
	proposed, err := chromedp.Run(ctx, chromedp.Value("textarea[name='arg.text.body']"))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(second.Preview), strings.TrimSpace(proposed), "the body as text, as the model proposed it")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue("textarea[name='arg.text.body']", edited),
		chromedp.Click("button[value=changes]"),
		chromedp.WaitVisible("[data-edit-changes] ins"),
	))
	screenshot(t, ctx, "run-edit-waiting.png")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click("button.approve"),
		chromedp.WaitVisible("#run-status.badge-completed"),
		chromedp.WaitVisible("ol.versions"),
	))

	posted := s.postedReviews()
	require.Len(t, posted, 1, "one comment, and neither proposal")
	require.True(t, strings.HasPrefix(posted[0].Body, edited), "the comment is alice's text: %q", posted[0].Body)

	versions, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("ol.versions > li")].map(li => li.innerText.split("\n")[0])`))
	require.NoError(t, err)
	require.Len(t, versions, 3, "%q", versions)
	require.True(t, strings.HasPrefix(versions[0], "Proposed by the model"), versions[0])
	require.True(t, strings.HasPrefix(versions[1], "Proposed by the model"), versions[1])
	require.True(t, strings.HasPrefix(versions[2], "Edited by alice"), versions[2])
	text, err := chromedp.Run(ctx, chromedp.Text("ol.versions"))
	require.NoError(t, err)
	require.Contains(t, text, "Sent back with feedback by alice")
	require.Contains(t, text, "+ Please remove the debug print and the AWS key.")

	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
	require.NoError(t, err)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Empty(t, found, "axe-core on a real run's finished page")
	screenshot(t, ctx, "run-edited-finished.png")
}
