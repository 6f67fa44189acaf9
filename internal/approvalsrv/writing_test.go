package approvalsrv

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// writingRuns is the fake runs with a model call in flight, as
// runclient.ModelWriting reads it from the pending activity.
type writingRuns struct {
	*fakeRuns
	writing string
}

func (w writingRuns) ModelWriting(context.Context, string) (string, error) { return w.writing, nil }

func writingHarness(t *testing.T, status api.RunStatus, writing string) *harness {
	t.Helper()
	runs := newFakeRuns()
	snap := waitingRun()
	snap.Run.Status = status
	snap.PendingAction = nil
	runs.put("run-1", snap)
	h := serve(t, testConfig(), Options{Runs: writingRuns{fakeRuns: runs, writing: writing},
		Permissions: everyoneReads{}, EventPollInterval: 10 * time.Millisecond})
	h.runs = runs
	return h
}

func TestRunPageAndPanelShowWhatTheModelIsWritingEscaped(t *testing.T) {
	h := writingHarness(t, api.RunRunning, "I will read the diff <script>alert(1)</script>")
	b := h.browser(map[string]string{"X-Forwarded-User": "alice"})

	page, _ := b.openRun("run-1")
	resp := b.do(http.MethodGet, "/runs/run-1/panel", nil, nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	panel := readAll(t, resp)

	for _, html := range []string{page, panel} {
		require.Contains(t, html, `Writing: <span id="model-writing">I will read the diff &lt;script&gt;alert(1)&lt;/script&gt;</span>`)
		require.NotContains(t, html, "<script>alert(1)")
	}
}

func TestRunPageShowsNoWritingWhenTheModelWritesNothingOrTheRunEnded(t *testing.T) {
	for name, h := range map[string]*harness{
		"offline model": writingHarness(t, api.RunRunning, ""),
		"ended run":     writingHarness(t, api.RunCompleted, "stale text"),
	} {
		page, _ := h.browser(map[string]string{"X-Forwarded-User": "alice"}).openRun("run-1")
		require.NotContains(t, page, "Writing:", name)
		require.NotContains(t, page, "data-writing", name)
	}
}
