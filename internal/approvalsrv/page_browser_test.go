package approvalsrv

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The widths every changed page is looked at: a laptop and a phone.
var pageWidths = []int64{1280, 390}

// screenshotDir is where the browser tests leave their pictures:
// AGENTRUN_SCREENSHOT_DIR, or the test's own temporary directory.
func screenshotDir(t *testing.T) string {
	if dir := os.Getenv("AGENTRUN_SCREENSHOT_DIR"); dir != "" {
		return dir
	}
	return t.TempDir()
}

// shoot saves the page at each width as name-WIDTH.png.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := screenshotDir(t)
	for _, w := range pageWidths {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)))
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: a PNG
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, w)), shot, 0o644))
	}
}

// requireAccessible runs axe-core's WCAG 2.1 A and AA rules on the page as
// it is at each width, and fails on any serious or critical violation.
func requireAccessible(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, w := range pageWidths {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)))
		require.Empty(t, axeViolations(t, ctx), "axe-core on %s at %d px", page, w)
	}
}

// axeViolations are the serious and critical violations axe-core finds on
// the page, injected into it.
func axeViolations(t *testing.T, ctx context.Context) []testkit.AxeViolation {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
	require.NoError(t, err, "inject axe-core")
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err, "run axe-core")
	return found
}

// The check itself finds what it is there for: an image without text and
// a page without a language.
func TestBrowserAxeCheckFindsSeriousViolations(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	ctx := pageBrowser(t, h)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(`data:text/html,<title>x</title><img src="x.png"><p style="color:rgb(200,200,200)">faint</p>`)))
	var ids []string
	for _, v := range axeViolations(t, ctx) {
		ids = append(ids, v.ID)
	}
	require.Subset(t, ids, []string{"image-alt", "html-has-lang", "color-contrast"})
}

// requireNothingBrokenMidWord checks, at each width, that no badge, time
// or column heading wraps, that no cell's word runs out of its cell, and
// that the page does not scroll sideways.
func requireNothingBrokenMidWord(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	for _, w := range pageWidths {
		require.NoError(t, chromedp.Do(ctx, chromedp.EmulateViewport(w, 900)))
		broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(() => {
			const out = [];
			const lines = el => {
				const r = document.createRange(); r.selectNodeContents(el);
				return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size;
			};
			document.querySelectorAll(".badge, time, th").forEach(el => {
				if (el.offsetParent !== null && lines(el) > 1) out.push("wraps: " + el.textContent.trim());
			});
			document.querySelectorAll("td").forEach(el => {
				if (el.scrollWidth > el.clientWidth + 1) out.push("overflows: " + el.textContent.trim().slice(0, 40));
			});
			if (document.documentElement.scrollWidth > window.innerWidth) out.push("page scrolls sideways");
			return out;
		})()`))
		require.NoError(t, err)
		require.Empty(t, broken, "%s at %d px", page, w)
	}
}

// editableReview is a waiting review whose body an approver may edit.
func editableReview() api.RunSnapshot {
	snap := waitingRun(viewerLogin)
	a := &snap.Actions[0]
	a.Editable = true
	a.Preview = "## Review of acme/widgets#1\n\n**6 findings**\n\n- `cache.go` line 30: leftover debug output.\n- `config/aws.go` line 8: an AWS key."
	args, _ := json.Marshal(map[string]string{"body": a.Preview})
	a.Args = args
	a.ArgsSchema = json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","minLength":1,"maxLength":65000}},"required":["body"],"additionalProperties":false}`)
	a.PreviewKind = api.PreviewMarkdown
	a.Words = &api.ToolWords{Noun: "comment", Verb: "post", Past: "posted"}
	snap.PendingAction = a
	snap.Label = "Waiting for approval to post a comment"
	snap.Run.UserID, snap.Run.Agent = "carol", "pr-review"
	return snap
}

// In a real browser an approver edits the review's body in a text area,
// sees the change against the model's proposal, and approves: the run gets
// the edited body as the action's arguments, no JSON typed.
func TestBrowserEditFormRoundTripWithoutTouchingJSON(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", editableReview())
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs/run-1"),
		chromedp.WaitVisible("details.edit > summary"),
		chromedp.Click("details.edit > summary"),
		chromedp.WaitVisible("textarea[name='arg.text.body']"),
	))
	body, err := chromedp.Run(ctx, chromedp.Value("textarea[name='arg.text.body']"))
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(body, "## Review of acme/widgets#1\n\n**6 findings**"), "the body as text: %q", body)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SetValue("textarea[name='arg.text.body']", "## Review of acme/widgets#1\n\n"),
		chromedp.SendKeys("textarea[name='arg.text.body']", "One finding: remove the AWS key."),
		chromedp.WaitVisible("[data-edit-changes] ins"),
	))
	diff, err := chromedp.Run(ctx, chromedp.Text("[data-edit-changes]"))
	require.NoError(t, err)
	require.Contains(t, diff, "- **6 findings**")
	require.Contains(t, diff, "+ One finding: remove the AWS key.")
	requireAccessible(t, ctx, "run page waiting, editing")
	shoot(t, ctx, "run-page-edit")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click("button.approve"),
		chromedp.WaitVisible("#answer:not([hidden])"),
	))
	sigs := h.runs.approvalSignals()
	require.Len(t, sigs, 1)
	require.JSONEq(t, `{"body":"## Review of acme/widgets#1\n\nOne finding: remove the AWS key."}`, string(sigs[0].Args))
	require.Equal(t, act1Hash, sigs[0].ArgsHash)
}

// The finished run keeps the model's proposal, the round sent back with
// feedback, and the edit, as three versions.
func TestBrowserFinishedRunShowsEveryVersionAndPassesAxe(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := editableReview()
	decided := testNow.Add(-30 * time.Minute)
	first := snap.Actions[0]
	first.ID, first.State, first.Feedback, first.DecidedBy, first.Reason = "act-0", api.ActionRejected, true, "bob", "Leave out the details."
	first.CreatedAt, first.DecidedAt = testNow.Add(-2*time.Hour), &decided
	last := snap.Actions[0]
	last.State, last.DecidedBy, last.DecidedAt = api.ActionApproved, viewerLogin, &decided
	last.Edit = &api.ActionEdit{By: viewerLogin, At: decided, From: api.ArgsVersion{
		Args:    json.RawMessage(`{"body":"## Review of acme/widgets#1\n\n**2 findings** (details left out, as the reviewer asked)"}`),
		Preview: "## Review of acme/widgets#1\n\n**2 findings** (details left out, as the reviewer asked)"}}
	last.Preview = "## Review of acme/widgets#1\n\nOne finding: remove the AWS key."
	last.Args = json.RawMessage(`{"body":"## Review of acme/widgets#1\n\nOne finding: remove the AWS key."}`)
	snap.Actions = []api.PendingAction{first, last}
	snap.PendingAction = &snap.Actions[1]
	snap.Run.Status, snap.Run.Outcome, snap.Label = api.RunCompleted, api.OutcomeComplete, api.LabelDone
	snap.Run.Result = "Posted the review of acme/widgets#1 as comment 2000000001. " + viewerLogin + " edited it before it was posted."
	snap.Outcome = api.Outcome{Summary: "Posted 1 comment on acme/widgets#1; a comment edited by " + viewerLogin + " before it was posted",
		Posted: []api.PostedOutcome{{StepID: "step-3", ActionID: "act-1", Target: "acme/widgets#1", ExternalID: "2000000001", CommentID: 2000000001,
			Made: "posted comment", ApprovedBy: viewerLogin, EditedBy: viewerLogin, URL: "https://github.com/acme/widgets/pull/1#issuecomment-2000000001"}},
		Declined: []api.DeclinedOutcome{{StepID: "step-2", ActionID: "act-0", Target: "acme/widgets#1", State: api.ActionRejected, Feedback: true,
			By: "bob", Reason: "Leave out the details.", Noun: "comment"}}}
	h.runs.put("run-1", snap)
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs/run-1"),
		chromedp.WaitVisible("ol.versions"),
	))
	versions, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("ol.versions > li > p:first-child strong")].map(e => e.textContent)`))
	require.NoError(t, err)
	require.Equal(t, []string{"Proposed by the model", "Proposed by the model", "Edited by " + viewerLogin}, versions)
	text, err := chromedp.Run(ctx, chromedp.Text("ol.versions"))
	require.NoError(t, err)
	require.Contains(t, text, "Sent back with feedback by bob")
	require.Contains(t, text, "Leave out the details.")
	requireAccessible(t, ctx, "run page finished")
	shoot(t, ctx, "run-page-finished")
}

// The recommender's waiting page lays its picks out as a table, beside
// the exact request that is approved, and names its target.
func TestBrowserStructuredPreviewIsATableAndPassesAxe(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := recommendationRun()
	snap.Run.UserID = viewerLogin
	h.runs.put("run-1", snap)
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs/run-1"),
		chromedp.WaitVisible("[data-readable-preview] table.data"),
	))
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[data-readable-preview] table.data")]
		.filter(t => t.caption.textContent === "picks")
		.flatMap(t => [...t.tBodies[0].rows].map(r => r.cells[0].textContent))`))
	require.NoError(t, err)
	require.Equal(t, []string{"Noodle Bar", "Taco <b>Stand</b>"}, names)
	status, err := chromedp.Run(ctx, chromedp.Text(".meta"))
	require.NoError(t, err)
	require.Equal(t, "table for 2 in riverside (budget 150)", status)
	requireAccessible(t, ctx, "run page waiting (recommendation)")
	shoot(t, ctx, "run-page-recommendation")
}

// The history and the inbox are tables people scan: at 1280 px and on a
// 390 px phone no badge, time or heading wraps, no word runs out of its
// cell, and axe-core finds nothing serious.
func TestBrowserHistoryAndInboxReadAtBothWidths(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	review := completedRun()
	review.Run.Agent, review.Run.UserID = "pr-review", viewerLogin
	review.Run.CreatedAt, review.Run.UpdatedAt = testNow.Add(-3*time.Hour), testNow.Add(-170*time.Minute)
	h.runs.put("review-acme-widgets-1-65735bd75e04", review)
	partial := recommendationRun()
	partial.Run.Status, partial.Run.Outcome, partial.Run.UserID = api.RunCompleted, api.OutcomePartial, viewerLogin
	partial.Run.CreatedAt, partial.Run.UpdatedAt = testNow.Add(-2*time.Hour), testNow.Add(-110*time.Minute)
	partial.Outcome = api.Outcome{Summary: "Saved 1 recommendation on table for 2 in riverside (budget 150); 1 step failed",
		Posted: []api.PostedOutcome{{StepID: "step-9", ActionID: "act-1", Target: "merchants.test/recommendations", Made: "saved recommendation"}},
		Failed: []api.FailedOutcome{{StepID: "step-5", What: "get_coupons", Error: "coupons unavailable"}}}
	h.runs.put("recommend-riverside-2-150-0d1f", partial)
	cancelled := cancelledRun()
	cancelled.Run.Agent, cancelled.Run.UserID = "pr-review", viewerLogin
	cancelled.Run.CreatedAt, cancelled.Run.UpdatedAt = testNow.Add(-time.Hour), testNow.Add(-50*time.Minute)
	h.runs.put("review-acme-widgets-2-9a0c44e1b7d2", cancelled)
	waiting := editableReview()
	waiting.Run.CreatedAt = testNow.Add(-10 * time.Minute)
	h.runs.put("review-acme-widgets-3-77aa01c3e9f0", waiting)
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs"),
		chromedp.WaitVisible("table.runs"),
	))
	statuses, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table.runs td[data-label=Status]")].map(e => e.innerText.replace(/\s+/g, " ").trim())`))
	require.NoError(t, err)
	require.Contains(t, statuses, "Partial get_coupons failed (coupons unavailable)")
	require.Contains(t, statuses, "Cancelled by alice wrong pull request")
	requireNothingBrokenMidWord(t, ctx, "history")
	requireAccessible(t, ctx, "history")
	shoot(t, ctx, "history")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/"),
		chromedp.WaitVisible("table.runs"),
	))
	requireNothingBrokenMidWord(t, ctx, "inbox")
	requireAccessible(t, ctx, "inbox")
	shoot(t, ctx, "inbox")
}
