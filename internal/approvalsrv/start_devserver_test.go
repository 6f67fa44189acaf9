package approvalsrv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// stubHarness is the server over a real dev server whose worker runs the
// stub AgentRun on the queue the server starts runs on.
func stubHarness(t *testing.T, prefix string) (*harness, *runclient.Client) {
	t.Helper()
	runs, queue := testkit.StartStub(t, prefix)
	cfg := testConfig()
	cfg.TaskQueue = queue
	return serve(t, cfg, Options{Runs: runs}), runs
}

func TestStartOverHTTPMakesOneRunPerKeyAndRefusesTheKeyForAnotherBody(t *testing.T) {
	h, runs := stubHarness(t, "approvalsrv-start")
	body := []byte(startBody)

	first := h.start("ticket-42", body)
	require.Equal(t, http.StatusAccepted, first.StatusCode)
	runID := replyOf(t, first)["runId"]
	snapshot := h.get(first.Header.Get("Location"), nil)
	require.Equal(t, http.StatusOK, snapshot.StatusCode, "the Location answers the run's snapshot")
	var snap api.RunSnapshot
	require.NoError(t, json.NewDecoder(snapshot.Body).Decode(&snap))
	require.Equal(t, runID, snap.Run.ID)

	again := h.start("ticket-42", body)
	require.Equal(t, http.StatusAccepted, again.StatusCode)
	require.Equal(t, runID, replyOf(t, again)["runId"])
	require.Equal(t, first.Header.Get("Location"), again.Header.Get("Location"))

	other := h.start("ticket-42", []byte(strings.Replace(startBody, `"pullNumber":7`, `"pullNumber":8`, 1)))
	require.Equal(t, http.StatusUnprocessableEntity, other.StatusCode)
	require.Equal(t, runclient.ErrIdempotencyConflict.Error(), replyOf(t, other)["error"])
	require.Equal(t, 1, testkit.Executions(t, runs, runID))

	desc, err := runs.Temporal().DescribeWorkflow(t.Context(), runID, "")
	require.NoError(t, err)
	agent, ok := desc.TypedSearchAttributes.GetKeyword(api.SearchAttrAgent)
	require.True(t, ok)
	require.Equal(t, "pr-review", agent, "the run is indexed by its agent at start")

	// Concurrent duplicates: one run, every caller told its ID.
	const callers = 8
	ids := make([]string, callers)
	codes := make([]int, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			req, err := http.NewRequest(http.MethodPost, h.http.URL+"/v1/runs", strings.NewReader(startBody))
			if err != nil {
				return
			}
			for k, v := range startHeaders("burst", body, testNow) {
				req.Header.Set(k, v)
			}
			resp, err := h.http.Client().Do(req)
			if err != nil {
				return
			}
			defer resp.Body.Close()
			var reply map[string]string
			if json.NewDecoder(resp.Body).Decode(&reply) == nil {
				codes[i], ids[i] = resp.StatusCode, reply["runId"]
			}
		})
	}
	wg.Wait()
	for i := range callers {
		require.Equal(t, http.StatusAccepted, codes[i], "caller %d", i)
		require.Equal(t, runclient.KeyedRunID("carol", "burst"), ids[i], "caller %d", i)
	}
	require.Equal(t, 1, testkit.Executions(t, runs, ids[0]))
}

func TestListRunsOverHTTPFiltersByStatusAndAgent(t *testing.T) {
	h, runs := stubHarness(t, "approvalsrv-list")
	start := func(key, agent string) string {
		body := strings.Replace(startBody, `"agent":"pr-review"`, fmt.Sprintf(`"agent":%q`, agent), 1)
		resp := h.start(key, []byte(body))
		require.Equal(t, http.StatusAccepted, resp.StatusCode)
		return replyOf(t, resp)["runId"]
	}
	review, triage := start("a", "pr-review"), start("b", "triage")
	const waiting = "run-waiting-triage"
	testkit.StartStubRun(t, runs, h.server.cfg.TaskQueue, waiting, "triage", testkit.Input{ActionID: "act-0123456789abcdef", ExpiresIn: time.Hour})

	list := func(query string) []string {
		resp := h.get("/v1/runs?"+query, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, query)
		var page runclient.Page
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&page))
		var ids []string
		for _, r := range page.Runs {
			ids = append(ids, r.RunID)
		}
		return ids
	}
	// Visibility is eventually consistent: wait until every run is indexed as it is.
	require.Eventually(t, func() bool {
		return len(list("")) == 3 && len(list("status=waiting_for_user")) == 1
	}, time.Minute, 50*time.Millisecond)

	require.Equal(t, []string{review}, list("agent=pr-review"))
	require.ElementsMatch(t, []string{triage, waiting}, list("agent=triage"))
	require.Equal(t, []string{waiting}, list("agent=triage&status=waiting_for_user"))
	require.Equal(t, []string{triage}, list("status=running&agent=triage"))
	require.Empty(t, list("agent=nobody"))

	firstPage := h.get("/v1/runs?pageSize=2", nil)
	var page runclient.Page
	require.NoError(t, json.NewDecoder(firstPage.Body).Decode(&page))
	require.Len(t, page.Runs, 2)
	require.NotEmpty(t, page.NextPageToken)
	rest := list("pageSize=2&pageToken=" + url.QueryEscape(page.NextPageToken))
	require.Len(t, rest, 1, "the token pages on")
	require.NotContains(t, []string{page.Runs[0].RunID, page.Runs[1].RunID}, rest[0])

	for _, hostile := range []string{"agent=" + url.QueryEscape("x' OR 1=1"), "pageToken=" + page.NextPageToken + "x", "pageToken=bm90LWEtdG9rZW4"} {
		resp := h.get("/v1/runs?"+hostile, nil)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, hostile)
	}
}
