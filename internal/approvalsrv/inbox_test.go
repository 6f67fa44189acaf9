package approvalsrv

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func (h *harness) listings() int {
	_, _, _, listings := h.runs.counts()
	return listings
}

func TestInboxRequestsArrivingDuringAListingShareIt(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.put("run-2", waitingRun())
	const n = 12
	// The listing is held until every other request waits for it or, were
	// there no sharing, has started a listing of its own.
	h.runs.listGate = func() {
		waitUntil(func() bool { return h.server.inbox.joined.Load() >= n-1 || h.listings() >= n }, 10*time.Second)
	}

	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/v1/approvals"
			if i%2 == 1 {
				path = "/"
			}
			codes[i] = h.get(path, nil).StatusCode
		}()
	}
	wg.Wait()

	for _, code := range codes {
		require.Equal(t, http.StatusOK, code)
	}
	require.Equal(t, 1, h.listings())
}

func TestInboxIsListedOncePerSecond(t *testing.T) {
	h := waitingHarness(t, nil)
	now := testNow
	h.server.inbox.now = func() time.Time { return now }

	for i := 0; i < 5; i++ {
		require.Equal(t, http.StatusOK, h.get("/v1/approvals", nil).StatusCode)
	}
	now = now.Add(999 * time.Millisecond)
	require.Equal(t, http.StatusOK, h.get("/", nil).StatusCode)
	require.Equal(t, 1, h.listings(), "within the second: one listing")

	h.runs.put("run-2", waitingRun())
	now = now.Add(time.Millisecond)
	resp := h.get("/v1/approvals", nil)

	require.Equal(t, 2, h.listings())
	require.Contains(t, readAll(t, resp), `"runId":"run-2"`)
}

func TestInboxFailureIsNotKept(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.setUnavailable(true)
	require.Equal(t, http.StatusServiceUnavailable, h.get("/v1/approvals", nil).StatusCode)

	h.runs.setUnavailable(false)
	resp := h.get("/v1/approvals", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, readAll(t, resp), `"runId":"run-1"`)
}
