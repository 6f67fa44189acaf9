package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// TestBrowserREADMEScreenshotOfTheApprovalPage opens the approval page of
// a real run (dev server, worker, the sandbox's GitHub) waiting on its
// review comment, as `make up` shows it at 1280 px, checks it with
// axe-core, and saves the top of it as run-page-waiting.png:
// `make readme-screenshot` writes it to docs/img for the README.
func TestBrowserREADMEScreenshotOfTheApprovalPage(t *testing.T) {
	s := startDevStack(t)
	const runID = "review-acme-widgets-1"
	s.startReview(runID)
	ctx := newBrowser(t, nil)
	require.NoError(t, chromedp.Do(ctx,
		chromedp.EmulateViewport(1280, 1000),
		chromedp.Navigate(s.approval.URL+"/runs/"+runID),
		chromedp.WaitVisible("#preview"),
		chromedp.WaitVisible("[data-rendered-preview]"),
	))
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](testkit.AxeCore(t)+";true"))
	require.NoError(t, err)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]testkit.AxeViolation](testkit.AxeSeriousViolations, chromedp.EvalAwaitPromise))
	require.NoError(t, err)
	require.Empty(t, found, "axe-core on a real run's waiting page")

	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()) // the top of the page, as a README shows it
	require.NoError(t, err)
	dir := os.Getenv("AGENTRUN_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run-page-waiting.png"), shot, 0o644))
}
