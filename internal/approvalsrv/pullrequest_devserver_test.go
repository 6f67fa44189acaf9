package approvalsrv

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// GitHub's opened delivery, delivered, redelivered (the same delivery ID),
// delivered again under a fresh ID and eight times at once, starts one run
// on a real dev server; a synchronize to a new head starts the next.
func TestRedeliveredAndConcurrentOpenedDeliveriesStartOneRunOnADevServer(t *testing.T) {
	h, runs := stubHarness(t, "approvalsrv-autoreview")
	var err error
	h.server.cfg.AutoReview, err = ParseAutoReview("acme/widgets")
	require.NoError(t, err)
	opened := exampleDelivery(t, "opened", nil)
	runID := PullReviewRunID("acme/widgets", 1, sandboxHead, api.DefaultAgent)

	for _, delivery := range []string{"d-1", "d-1", "d-2"} {
		resp := h.deliver("pull_request", delivery, opened)
		require.Equal(t, http.StatusAccepted, resp.StatusCode, delivery)
		require.Contains(t, replyOf(t, resp)["status"], runID)
	}
	codes := make([]int, 8)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() { codes[i] = h.deliver("pull_request", "burst", opened).StatusCode })
	}
	wg.Wait()
	for _, code := range codes {
		require.Equal(t, http.StatusAccepted, code)
	}
	require.Equal(t, 1, testkit.Executions(t, runs, runID))

	next := strings.Repeat("b", 40)
	sync := exampleDelivery(t, "synchronize", func(s string) string { return strings.ReplaceAll(s, sandboxHead, next) })
	require.Equal(t, http.StatusAccepted, h.deliver("pull_request", "d-3", sync).StatusCode)
	require.Equal(t, 1, testkit.Executions(t, runs, PullReviewRunID("acme/widgets", 1, next, api.DefaultAgent)),
		"a new head is a new review")
}
