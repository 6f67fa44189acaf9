package approvalsrv

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestHistoryPageListsRunsNewestFirstWithTheirOutcome(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	older := completedRun()
	older.Run.CreatedAt = testNow.Add(-2 * time.Hour)
	h.runs.put("run-old", older)
	newer := waitingRun()
	newer.Run.CreatedAt = testNow.Add(-time.Hour)
	newer.Outcome.Summary = "Nothing posted yet on acme/widgets#1"
	h.runs.put("run-new", newer)

	resp := h.get("/runs", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	page := readAll(t, resp)
	require.Less(t, strings.Index(page, `href="/runs/run-new"`), strings.Index(page, `href="/runs/run-old"`), "newest first")
	require.Contains(t, page, "Posted 1 comment on acme/widgets#1")
	require.Contains(t, page, "Nothing posted yet on acme/widgets#1")
	require.Contains(t, page, `<option value="" selected>All</option>`)
}

func TestHistoryPageFiltersByStatus(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-done", completedRun())
	h.runs.put("run-waiting", waitingRun())

	page := readAll(t, h.get("/runs?status=completed", nil))

	require.Contains(t, page, `href="/runs/run-done"`)
	require.NotContains(t, page, `href="/runs/run-waiting"`)
	require.Contains(t, page, `<option value="completed" selected>Done</option>`)
}

func TestHistoryPageRefusesAnUnknownStatusWithoutEchoingIt(t *testing.T) {
	h := newHarness(t, testConfig(), nil)

	resp := h.get("/runs?status=%3Cscript%3E", nil)

	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	page := readAll(t, resp)
	require.Contains(t, page, "Unknown status filter")
	require.NotContains(t, page, "script&gt;")
	_, _, _, listings := h.runs.counts()
	require.Zero(t, listings, "nothing is listed for a bad filter")
}

func TestHistoryPageShowsAtMostTheLatestFiftyRuns(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	for i := range historyLimit + 5 {
		snap := completedRun()
		snap.Run.CreatedAt = testNow.Add(time.Duration(i) * time.Minute)
		h.runs.put(fmt.Sprintf("run-%03d", i), snap)
	}

	page := readAll(t, h.get("/runs", nil))

	require.Equal(t, historyLimit, strings.Count(page, `<tr>`)-1, "rows besides the header row")
	require.Contains(t, page, `href="/runs/run-054"`)
	require.NotContains(t, page, `href="/runs/run-004"`)
	require.Contains(t, page, "Showing the latest 50 runs.")
	snapshots, _, _, _ := h.runs.counts()
	require.Equal(t, historyLimit, snapshots, "only the shown runs are asked for their outcome")
}

func TestHistoryPageNeedsTheLoginProxysUser(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", completedRun())

	resp := h.getAnonymous("/runs", nil)

	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	require.NotContains(t, readAll(t, resp), "run-1")
}

func TestHistoryPageWhenTemporalIsDownAnswers503WithoutDetails(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.setUnavailable(true)

	resp := h.get("/runs", nil)

	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	page := readAll(t, resp)
	require.Contains(t, page, "temporal is unreachable")
	require.NotContains(t, page, "fake:")
}

// In dev mode a run that does not answer keeps its row; outside it, the
// row goes, since nobody can tell who may read the run.
func TestHistoryRowOfARunThatDoesNotAnswerShowsOnlyInDevMode(t *testing.T) {
	for _, dev := range []bool{true, false} {
		cfg := testConfig()
		if dev {
			cfg = Config{InsecureDev: true}
		}
		h := newHarness(t, cfg, nil)
		h.runs.put("run-1", completedRun())
		h.runs.mu.Lock()
		h.runs.snapshotsUnavailable = true
		h.runs.mu.Unlock()

		page := readAll(t, h.get("/runs?status="+string(api.RunCompleted), nil))

		if dev {
			require.Contains(t, page, `href="/runs/run-1"`)
			require.Contains(t, page, "not available right now")
		} else {
			require.NotContains(t, page, `href="/runs/run-1"`)
		}
	}
}

func TestHistoryIsATableOfAgentTargetRequesterStatusOutcomeStartedAndEndedFilteredByAgent(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	review := completedRun()
	review.Run.Agent, review.Run.UserID = "pr-review", "carol"
	review.Run.CreatedAt, review.Run.UpdatedAt = testNow.Add(-2*time.Hour), testNow.Add(-90*time.Minute)
	h.runs.put("run-review", review)
	partial := recommendationRun()
	partial.Run.Status, partial.Run.Outcome, partial.Run.UserID = api.RunCompleted, api.OutcomePartial, viewerLogin
	partial.Run.CreatedAt = testNow.Add(-time.Hour)
	h.runs.put("run-recommend", partial)

	page := readAll(t, h.get("/runs", nil))
	for _, col := range []string{"Target", "Agent", "Requester", "Status", "Outcome", "Started", "Ended"} {
		require.Contains(t, page, `<th scope="col">`+col+`</th>`)
	}
	require.Contains(t, page, `<td data-label="Agent" class="nowrap">pr-review</td>`)
	require.Contains(t, page, `<td data-label="Requester">carol</td>`)
	require.Contains(t, page, `<time datetime="2025-03-04T10:30:00Z" title="2025-03-04 10:30:00 UTC">Mar 4 10:30</time>`, "when the run ended")
	require.Contains(t, page, "table for 2 in riverside (budget 150)</a>", "the target by name")
	require.Contains(t, page, `<option value="recommend"></option>`, "the agents shown are offered as filters")

	page = readAll(t, h.get("/runs?agent=recommend", nil))
	require.Contains(t, page, `href="/runs/run-recommend"`)
	require.NotContains(t, page, `href="/runs/run-review"`)
	require.Contains(t, page, `value="recommend"`)

	resp := h.get("/runs?agent=%3Cscript%3E", nil)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.NotContains(t, readAll(t, resp), "script&gt;")
}
