package approvalsrv

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/testkit"
)

// In a real browser, under the page's own CSP, the hostile preview renders
// formatted and none of its script runs: each attack would set the title
// or a window property if it did.
func TestBrowserRendersAHostilePreviewWithoutRunningItsScript(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun()
	snap.PendingAction.Preview = hostilePreview +
		"\n<svg onload=\"window.pwned='svg'\"></svg>\n\n<a href=\"javascript:window.pwned='link'\">click</a>\n"
	h.runs.put("run-1", snap)
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(h.http.URL+"/runs/run-1"),
		chromedp.WaitVisible("[data-rendered-preview] strong"),
	))
	bold, err := chromedp.Run(ctx, chromedp.Text("[data-rendered-preview] strong"))
	require.NoError(t, err)
	// Links as the browser parsed them: none may run script or stay here.
	badLinks, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[data-rendered-preview] a")]
		.filter(a => !["http:", "https:", "mailto:"].includes(a.protocol) || a.target !== "_blank").map(a => a.outerHTML)`))
	require.NoError(t, err)
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.pwned || "")`))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	dir := os.Getenv("AGENTRUN_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rendered-preview.png"), shot, 0o644))

	require.Equal(t, "bold", bold)
	require.Empty(t, badLinks)
	require.NotContains(t, title, "pwned", "a script of the preview set the title")
	require.Empty(t, pwned, "a script of the preview ran")
}

// pageBrowser is a headless chromium whose every request carries the login
// proxy's header for the page's person (viewerLogin); its steps have 30 s.
func pageBrowser(t *testing.T, h *harness) context.Context {
	t.Helper()
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(testkit.Chromium(t)), chromedp.UserDataDir(t.TempDir()), chromedp.Headless, chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1200, 1400))
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelWait := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(cancelWait)
	_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
	require.NoError(t, err)
	_, err = chromedp.Call(ctx, network.SetExtraHTTPHeaders,
		network.SetExtraHTTPHeadersParams{Headers: network.Headers{h.server.cfg.IdentityHeader: viewerLogin}})
	require.NoError(t, err)
	return ctx
}
