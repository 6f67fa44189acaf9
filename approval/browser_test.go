package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/workflows"
)

// chromium finds Debian's chromium. Without it the test skips locally; in CI
// (CI set) a missing browser is a failure, never a silent skip.
func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("chromium is not installed (apt-get install -y chromium): %v", err)
		}
		t.Skip("chromium is not installed; apt-get install -y chromium")
	}
	return path
}

// newBrowser starts a headless chromium with a fresh profile that sends
// headers on every request, as a login proxy in front of the server would.
func newBrowser(t *testing.T, headers map[string]any) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
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
	return ctx
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
	ctx, cancel := context.WithTimeout(ctx, waitLong)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.approval.URL+"/runs/review-browser-1"),
		chromedp.WaitVisible("#preview"),
	))
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

	snap, ok := s.snapshot("review-browser-1")
	require.True(t, ok)
	require.Equal(t, workflows.RunCompleted, snap.Run.Status)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	require.Len(t, s.postedReviews(), 1)
}

func TestBrowserRejectByKeyboardNeedsAReasonAndPostsNothing(t *testing.T) {
	s := startStack(t)
	s.startReview("review-browser-2", "alice")
	ctx := newBrowser(t, map[string]any{identityHeader: "alice"})
	ctx, cancel := context.WithTimeout(ctx, waitLong)
	defer cancel()

	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(s.approval.URL+"/runs/review-browser-2"),
		chromedp.WaitVisible("#preview"),
		chromedp.Focus("button.reject"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible("#decision-result"),
	))
	notice, err := chromedp.Run(ctx, chromedp.Text("#decision-result"))
	require.NoError(t, err)
	require.Equal(t, "A rejection needs a reason.", notice)

	require.NoError(t, chromedp.Do(ctx,
		chromedp.SendKeys("#reason", "the tone is too harsh"),
		chromedp.Focus("button.reject"),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible("#run-status.badge-completed"),
	))
	actionState, err := chromedp.Run(ctx, chromedp.Text("#action-state"))
	require.NoError(t, err)
	require.Equal(t, "rejected by alice: the tone is too harsh", actionState)
	require.Empty(t, s.postedReviews())
}
