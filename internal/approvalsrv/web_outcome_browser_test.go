package approvalsrv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// The notice after an approval replayed on an action already done, as a
// browser shows it: the decision changed nothing, the message was sent.
func TestBrowserReplayedApprovalNoticeSaysWhatWasDone(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := completedRun()
	words := api.ToolWords{Noun: "message", Verb: "send", Past: "sent"}
	snap.Steps = []api.AgentStep{{ID: "step-3", Sequence: 3, Type: api.StepToolCall, ToolName: "send_message", Words: &words,
		Status: api.StepSucceeded, ExternalResourceID: "M-3", Effect: api.EffectFound, Attempt: 1}}
	snap.Outcome = api.Outcome{Summary: "Sent 1 message on acme/widgets#1; a message found already sent before the answer was lost, not sent again",
		Posted: []api.PostedOutcome{{StepID: "step-3", ActionID: "act-1", Tool: "send_message", Target: "acme/widgets#1", ExternalID: "M-3",
			Made: "found message", Effect: api.EffectFound, AlreadyDone: "already sent before the answer was lost", ApprovedBy: "alice"}}}
	h.runs.put("run-1", snap)
	ctx := pageBrowser(t, h)

	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(h.http.URL+"/runs/run-1?result=409"), chromedp.WaitVisible("body")))
	body, err := chromedp.Run(ctx, chromedp.Text("body"))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	dir := os.Getenv("AGENTRUN_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "run-replayed-approval.png"), shot, 0o644))

	require.Contains(t, body, "Your decision changed nothing: the action was already approved by alice. Done: found message M-3 (already sent before the answer was lost).")
	require.NotContains(t, body, "Not sent")
	require.Contains(t, body, "Done: found message M-3 (already sent before the answer was lost) on acme/widgets#1, approved by alice")
}
