package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"

	"github.com/agentrun/agentrun/api"
)

// newBrowser starts a headless chromium with a fresh profile that sends
// headers on every request, as a login proxy in front of the server would;
// its tab is bounded by waitLong.
func newBrowser(t *testing.T, headers map[string]any) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(testkit.Chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(390, 844), // a phone
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx)) // starts the browser and its tab
	watchScriptErrors(t, ctx)
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers(headers)})
	require.NoError(t, err)
	// Every step of a test, the run's own included, has waitLong from here.
	ctx, cancelWait := context.WithTimeout(ctx, waitLong)
	t.Cleanup(cancelWait)
	return ctx
}

// openRun opens a run's page and waits for its pending action's preview.
func (s *stack) openRun(ctx context.Context, runID string) {
	s.t.Helper()
	require.NoError(s.t, chromedp.Do(ctx,
		chromedp.Navigate(s.approval.URL+"/runs/"+runID),
		chromedp.WaitVisible("#preview"),
	))
}

// watchScriptErrors fails the test if the page throws or logs an error, for
// example when the content security policy blocks one of its scripts or a
// request of the page fails.
func watchScriptErrors(t *testing.T, ctx context.Context) {
	var mu sync.Mutex
	var exceptions []string
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				exceptions = append(exceptions, m.String())
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		require.Empty(t, exceptions, "the page threw or logged errors")
	})
}

func TestBrowserApproveShowsDoneAndPostsOneComment(t *testing.T) {
	s := startStack(t)
	action := s.startReview("review-browser-1", "alice")
	ctx := newBrowser(t, map[string]any{identityHeader: "alice"})

	s.openRun(ctx, "review-browser-1")
	preview, err := chromedp.Run(ctx, chromedp.TextContent("#preview"))
	require.NoError(t, err)
	signedIn, err := chromedp.Run(ctx, chromedp.Text("form.decision .meta"))
	require.NoError(t, err)
	require.Equal(t, strings.TrimSpace(action.Preview), strings.TrimSpace(preview))
	require.Contains(t, signedIn, "alice")
	require.Empty(t, s.postedReviews(), "nothing is posted before the click")

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click("button.approve"),
		chromedp.WaitVisible("#run-status.badge-completed"),
	))
	status, err := chromedp.Run(ctx, chromedp.Text("#run-status"))
	require.NoError(t, err)
	require.Equal(t, "Done", status)

	snap := s.readableSnapshot("review-browser-1")
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	require.Len(t, s.postedReviews(), 1)
}

// rejectByKeyboard presses Enter on the Reject button, waits for until to
// show, and reads the text of read.
func rejectByKeyboard(t *testing.T, ctx context.Context, until, read string) string {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Focus("button.reject"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(until),
	))
	text, err := chromedp.Run(ctx, chromedp.Text(read))
	require.NoError(t, err)
	return text
}

func TestBrowserRejectByKeyboardNeedsAReasonAndPostsNothing(t *testing.T) {
	s := startStack(t)
	s.startReview("review-browser-2", "alice")
	ctx := newBrowser(t, map[string]any{identityHeader: "alice"})

	s.openRun(ctx, "review-browser-2")
	notice := rejectByKeyboard(t, ctx, "#answer", "#answer")
	require.Equal(t, "A rejection needs a reason.", notice)

	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#reason", "the tone is too harsh")))
	// A run that did none of its task is never a green Done.
	actionState := rejectByKeyboard(t, ctx, "#run-status.badge-not_done", "#action-state")
	require.Equal(t, "rejected by alice: the tone is too harsh", actionState)
	status := pageTexts(t, ctx, "#run-status", "#run-status-detail")
	require.Equal(t, "Rejected by alice", status["#run-status"])
	require.Equal(t, "the tone is too harsh", status["#run-status-detail"])
	require.Empty(t, s.postedReviews())
}

// screenshot saves the page as people see it, for a person to look at; the
// test asserts on texts, never on pixels. AGENTRUN_SCREENSHOT_DIR keeps the
// files (for the docs); otherwise they go to the test's temp dir.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // 100 is PNG; less is JPEG
	require.NoError(t, err)
	dir := os.Getenv("AGENTRUN_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("screenshot: %s", path)
}

// pageTexts reads the text of each selector's first element in one script
// run: the page swaps its panel whenever an event arrives, so reading the
// elements one call at a time can meet a node that was just replaced. A
// selector that matches nothing is missing from the answer.
func pageTexts(t *testing.T, ctx context.Context, selectors ...string) map[string]string {
	t.Helper()
	list, err := json.Marshal(selectors)
	require.NoError(t, err)
	texts, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`(sels => Object.fromEntries(sels
		.filter(s => document.querySelector(s))
		.map(s => [s, document.querySelector(s).innerText])))(`+string(list)+`)`))
	require.NoError(t, err)
	return texts
}

// startDevStack is startStack as `make up` runs the approval server: dev
// mode, no login proxy, so that the page asks people to type their name.
func startDevStack(t *testing.T) *stack {
	t.Helper()
	return startStackWith(t, map[string]string{
		"APPROVAL_INSECURE_DEV": "1",
		"APPROVAL_SECRET":       e2eSecret,
	})
}

// TestBrowserFirstTenMinutesReadOnlyUserIsIgnoredWriterApprovesOutcomeLinksTheComment
// walks the README's first ten minutes on the page of a run that names no
// approvers: the inbox lists it, mallory (read permission) approves and the
// run ignores her (a warning on the page), bob (write) approves, and the
// page ends on the outcome with the link to the posted comment.
func TestBrowserFirstTenMinutesReadOnlyUserIsIgnoredWriterApprovesOutcomeLinksTheComment(t *testing.T) {
	s := startDevStack(t)
	const runID = "review-first-ten-minutes"
	action := s.startReview(runID) // no approvers: write permission decides
	ctx := newBrowser(t, nil)
	runLink := `#inbox a[href="/runs/` + runID + `"]`

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.approval.URL+"/"),
		chromedp.WaitVisible(runLink),
		chromedp.Click(runLink),
		chromedp.WaitVisible("#preview"),
	))
	screenshot(t, ctx, "run-waiting.png")
	waiting := pageTexts(t, ctx, "#preview", "#run-status", "#action-heading")
	require.Equal(t, strings.TrimSpace(action.Preview), strings.TrimSpace(waiting["#preview"]))
	require.Equal(t, "Waiting for approval", waiting["#run-status"])
	require.Equal(t, "Waiting for your decision", waiting["#action-heading"])

	// Someone starts typing why they would stop the run: the form stays
	// while the run is open, and so does what they typed.
	const halfTyped = "waiting on the security review"
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys("#reason-cancel", halfTyped)))

	// mallory may read the repository, not write to it: the server passes
	// her typed name on, and the run's own permission check ignores her.
	// The answer says so where she acted, with the run's own reason.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys("#approver", "mallory"),
		chromedp.Click("button.approve"),
		chromedp.WaitVisible(`section.warnings li.warning`),
	))
	_, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("#answer").innerText.startsWith("Not taken")`))
	require.NoError(t, err)
	screenshot(t, ctx, "run-refused.png")
	ignored := pageTexts(t, ctx, "section.warnings li.warning", "#answer")
	require.Contains(t, ignored["section.warnings li.warning"], "mallory has read permission on acme/widgets")
	require.Contains(t, ignored["#answer"], "Not taken: the run refused this decision: mallory has read permission on acme/widgets")
	require.Empty(t, s.postedReviews(), "nothing is posted on mallory's word")
	typed, err := chromedp.Run(ctx, chromedp.Value("#reason-cancel"))
	require.NoError(t, err)
	require.Equal(t, halfTyped, typed, "the panel's swaps keep what was typed into a form that stays")

	// The form comes back once the run has ignored her, as she left it (her
	// name still typed in); bob, a writer, approves on the same page.
	require.NoError(t, chromedp.Do(ctx, chromedp.WaitEnabled("button.approve")))
	_, err = chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#approver").value = ""`))
	require.NoError(t, err)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys("#approver", "bob"),
		chromedp.Focus("button.approve"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible("#run-status.badge-completed"),
		chromedp.WaitVisible(".outcome-list .posted a"),
		// The run ended while the page was open: without a reload, its
		// cancel form gives way to the follow-up form.
		chromedp.WaitVisible("form.follow-up"),
	))
	screenshot(t, ctx, "run-completed.png")
	final := pageTexts(t, ctx, "#outcome-summary", ".outcome-list .posted", "#steps-heading + ol", "section.warnings", "#run-label",
		"form.cancel", "#action-heading", "#shown-heading", "#answer")
	link, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(".outcome-list .posted a").getAttribute("href")`))
	require.NoError(t, err)

	comments := s.postedReviews()
	require.Len(t, comments, 1)
	commentID := strconv.FormatInt(comments[0].ID, 10)
	require.Equal(t, "Posted 1 comment on acme/widgets#1", final["#outcome-summary"])
	require.Contains(t, final[".outcome-list .posted"], "comment "+commentID+" on acme/widgets#1, approved by bob")
	require.True(t, strings.HasSuffix(link, "#issuecomment-"+commentID), link)
	require.Contains(t, final["#steps-heading + ol"], "Checked mallory's permission: read")
	require.Contains(t, final["#steps-heading + ol"], "Checked bob's permission: write")
	require.Contains(t, final["section.warnings"], "mallory has read permission on acme/widgets")
	require.NotContains(t, final, "#run-label", "no label repeating \"Done\"")
	require.NotContains(t, final, "form.cancel", "no cancel form on an ended run")
	require.Equal(t, "Done, approved by bob", final["#action-heading"])
	require.Equal(t, "As posted on acme/widgets#1", final["#shown-heading"])
	require.Equal(t, "Taken: approved by bob.", final["#answer"])
}
