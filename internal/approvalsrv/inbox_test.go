package approvalsrv

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
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

func TestInboxListsEachWaitingActionOfARunOnItsOwnRowWithOneQueryPerRun(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", twoWaitingRun(true))
	h.runs.put("run-2", waitingRun())
	decided := twoWaitingRun(true)
	decided.Actions[0].State = api.ActionApproved
	h.runs.put("run-3", decided)

	resp := h.get("/v1/approvals", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct{ Approvals []runclient.PendingApproval }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	snapshots, _, _, listings := h.runs.counts()
	page := readAll(t, h.get("/", nil))

	rows := map[string][]string{}
	for _, a := range body.Approvals {
		rows[a.RunID] = append(rows[a.RunID], a.ActionID)
	}
	require.Equal(t, map[string][]string{"run-1": {"act-1", "act-2"}, "run-2": {"act-1"}, "run-3": {"act-2"}}, rows)
	for _, a := range body.Approvals {
		if a.RunID == "run-1" && a.ActionID == "act-2" {
			require.Equal(t, runclient.PendingApproval{
				RunID: "run-1", ActionID: "act-2", ArgsHash: act2Hash, Tool: "create_issue", Agent: "triage", Batch: true,
				Repo: "acme/widgets", PullNumber: 1, Target: "acme/widgets#1", RunTarget: "acme/widgets#1", Preview: "File an issue: TODO in cache.go.",
				RequestedBy: "agent", CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt, Label: a.Label,
			}, a)
		}
	}
	require.Equal(t, 3, snapshots, "one run query per waiting run, however many actions it has")
	require.Equal(t, 1, listings)
	require.Equal(t, 4, strings.Count(page, `class="card"`), "the page has the same rows")
	require.Contains(t, page, "Create an issue on acme/widgets#1</a>")
	require.Contains(t, page, `<td data-label="Agent" class="nowrap">triage</td>`)
	require.Contains(t, page, "File an issue: TODO in cache.go.")
}
