package approvalsrv

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testPollInterval = 10 * time.Millisecond // newHarnessOn's EventPollInterval

func (h *harness) eventsQueries() int {
	_, events, _, _ := h.runs.counts()
	return events
}

func (h *harness) waitForPollers(running int) {
	h.t.Helper()
	require.Eventually(h.t, func() bool {
		registered, goroutines := h.server.streams.Pollers()
		return goroutines == running && registered == running
	}, 10*time.Second, time.Millisecond)
}

func TestStreamsOfOneRunShareOnePoller(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", runEvents(1, 3)...)
	const streams = 10
	start := time.Now()

	var resps []*http.Response
	for i := 0; i < streams; i++ {
		resp := h.get("/v1/runs/run-1/events", nil)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		resps = append(resps, resp)
	}
	h.waitForPollers(1)
	// Let the poller work for a while with every stream open.
	require.Eventually(t, func() bool { return h.eventsQueries() >= streams+10 }, 10*time.Second, time.Millisecond)
	h.runs.appendEvents("run-1", runEvents(4, 4)...)
	h.runs.appendEvents("run-1", finished(5))
	var wg sync.WaitGroup
	ids := make([][]string, streams)
	for i, resp := range resps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, m := range readSSE(t, resp) {
				ids[i] = append(ids[i], m.event+m.id)
			}
		}()
	}
	wg.Wait()
	h.waitForPollers(0)
	elapsed := time.Since(start)

	for i := range ids {
		require.Equal(t, []string{"1", "2", "3", "4", "5", "end"}, ids[i], "stream %d", i)
	}
	// One query per stream to start it, then at most one per tick in all.
	maxQueries := streams + int(elapsed/testPollInterval) + 2
	require.LessOrEqual(t, h.eventsQueries(), maxQueries, "queries in %v", elapsed)
}

func TestPollerStopsAfterTheLastStreamLeaves(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.put("run-2", waitingRun())
	first := h.get("/v1/runs/run-1/events", nil)
	second := h.get("/v1/runs/run-1/events", nil)
	other := h.get("/v1/runs/run-2/events", nil)
	for _, resp := range []*http.Response{first, second, other} {
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	h.waitForPollers(2)

	first.Body.Close()
	require.Eventually(t, func() bool { return h.server.streams.OpenStreams() == 2 }, 10*time.Second, time.Millisecond)
	registered, _ := h.server.streams.Pollers()
	require.Equal(t, 2, registered, "run-1 still has a stream")
	second.Body.Close()
	h.waitForPollers(1)
	other.Body.Close()
	h.waitForPollers(0)

	queries := h.eventsQueries()
	again := h.get("/v1/runs/run-1/events", nil)
	require.Equal(t, http.StatusOK, again.StatusCode)
	h.waitForPollers(1)
	require.Greater(t, h.eventsQueries(), queries, "a new stream starts a new poller")
}

func TestEventStreamsOverTheCapsAnswer429(t *testing.T) {
	h := waitingHarness(t, nil)
	h.server.streams.SetCaps(3, 2)
	as := func(user string) map[string]string { return map[string]string{"X-Forwarded-User": user} }

	for i := 0; i < 2; i++ {
		require.Equal(t, http.StatusOK, h.get("/runs/run-1/events", as("alice")).StatusCode)
	}
	perUser := h.get("/runs/run-1/events", as("alice"))
	require.Equal(t, http.StatusOK, h.get("/runs/run-1/events", as("bob")).StatusCode, "bob has his own allowance")
	total := h.get("/runs/run-1/events", as("carol"))

	require.Equal(t, http.StatusTooManyRequests, perUser.StatusCode)
	require.Equal(t, "you have 2 event streams open, the most allowed; close a run page and try again", replyOf(t, perUser)["error"])
	require.NotEmpty(t, perUser.Header.Get("Retry-After"))
	require.Equal(t, http.StatusTooManyRequests, total.StatusCode)
	require.Equal(t, "the server has too many event streams open; try again later", replyOf(t, total)["error"])
	registered, _ := h.server.streams.Pollers()
	require.Equal(t, 1, registered, "a refused stream starts nothing")
}

func TestEventStreamsWithoutAUserCountAgainstTheirAddress(t *testing.T) {
	h := waitingHarness(t, nil)
	h.server.streams.SetCaps(1000, 1)

	first := h.get("/v1/runs/run-1/events", nil)
	second := h.get("/v1/runs/run-1/events", map[string]string{"Last-Event-ID": strconv.Itoa(0)})

	require.Equal(t, http.StatusOK, first.StatusCode)
	require.Equal(t, http.StatusTooManyRequests, second.StatusCode)
	first.Body.Close()
	require.Eventually(t, func() bool { return h.server.streams.OpenStreams() == 0 }, 10*time.Second, time.Millisecond)
	require.Equal(t, http.StatusOK, h.get("/v1/runs/run-1/events", nil).StatusCode, "a closed stream gives its place back")
}

func TestALastEventIDBeyondTheRunDoesNotStallItsOtherStreams(t *testing.T) {
	h := waitingHarness(t, nil)
	ahead := h.get("/v1/runs/run-1/events", map[string]string{"Last-Event-ID": "1000"})
	require.Equal(t, http.StatusOK, ahead.StatusCode)
	h.waitForPollers(1)
	plain := h.get("/v1/runs/run-1/events", nil)
	require.Equal(t, http.StatusOK, plain.StatusCode)

	h.runs.appendEvents("run-1", runEvents(1, 2)...)
	h.runs.appendEvents("run-1", finished(3))
	got := make(chan []string, 1)
	go func() {
		var ids []string
		for _, m := range readSSE(t, plain) {
			ids = append(ids, m.event+m.id)
		}
		got <- ids
	}()

	select {
	case ids := <-got:
		require.Equal(t, []string{"1", "2", "3", "end"}, ids)
	case <-time.After(10 * time.Second):
		t.Fatal("the stream without Last-Event-ID never got the run's new events")
	}
}
