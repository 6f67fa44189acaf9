package approvalsrv

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func TestSnapshotEndpointReturnsTheRunQuery(t *testing.T) {
	h := waitingHarness(t, nil, "alice")

	resp := h.get("/v1/runs/run-1", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	var snap api.RunSnapshot
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&snap))
	require.Equal(t, "act-1", snap.PendingAction.ID)
	require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
}

func TestSnapshotOfUnknownRunAnswers404AndUnreachableTemporal503(t *testing.T) {
	h := waitingHarness(t, nil)

	require.Equal(t, http.StatusNotFound, h.get("/v1/runs/run-9", nil).StatusCode)
	h.runs.setUnavailable(true)
	require.Equal(t, http.StatusServiceUnavailable, h.get("/v1/runs/run-1", nil).StatusCode)
}

func TestApprovalsListsEveryWaitingActionAcrossRuns(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	sooner := waitingRun()
	sooner.PendingAction.ID = "act-2"
	sooner.PendingAction.ExpiresAt = testNow.Add(time.Hour)
	h.runs.put("run-2", sooner)
	decided := waitingRun()
	decided.PendingAction.State = api.ActionApproved
	h.runs.put("run-3", decided)
	running := waitingRun()
	running.Run.Status = api.RunRunning
	h.runs.put("run-4", running)

	resp := h.get("/v1/approvals", nil)

	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct{ Approvals []runclient.PendingApproval }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Len(t, body.Approvals, 2)
	first := body.Approvals[0]
	require.Equal(t, "run-2", first.RunID)
	require.Equal(t, "act-2", first.ActionID)
	require.Equal(t, "create_issue_comment", first.Tool)
	require.Equal(t, "acme/widgets", first.Repo)
	require.Equal(t, 1, first.PullNumber)
	require.Equal(t, "Looks good, but `fmt.Println` is left in cache.go.", first.Preview)
	require.Equal(t, "agent", first.RequestedBy)
	require.True(t, first.ExpiresAt.Equal(testNow.Add(time.Hour)))
	require.Equal(t, "run-1", body.Approvals[1].RunID)
}

func TestApprovalsWhileTemporalIsUnreachableAnswers503(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.setUnavailable(true)

	require.Equal(t, http.StatusServiceUnavailable, h.get("/v1/approvals", nil).StatusCode)
}

type sseMessage struct {
	id, event, data string
}

// readSSE reads messages until the stream ends.
func readSSE(t *testing.T, resp *http.Response) []sseMessage {
	t.Helper()
	var out []sseMessage
	var cur sseMessage
	scanner := bufio.NewScanner(resp.Body)
	for scanner.Scan() {
		line := scanner.Text()
		switch {
		case line == "":
			if cur.data != "" {
				out = append(out, cur)
			}
			cur = sseMessage{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out
}

func runEvents(from, to int64) []api.Event {
	var events []api.Event
	for seq := from; seq <= to; seq++ {
		events = append(events, api.Event{Sequence: seq, Type: api.EventStepStatus, Status: "running", Label: "step"})
	}
	return events
}

func finished(seq int64) api.Event {
	return api.Event{Sequence: seq, Type: api.EventRunStatus, Status: string(api.RunCompleted), Label: "Done"}
}

func TestEventStreamSendsEachEventWithItsSequenceAndEndsWithTheRun(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", runEvents(1, 3)...)

	resp := h.get("/v1/runs/run-1/events", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	// Events recorded after the stream opened arrive through its polling.
	h.runs.appendEvents("run-1", runEvents(4, 5)...)
	h.runs.appendEvents("run-1", finished(6))
	messages := readSSE(t, resp)

	require.Len(t, messages, 7)
	for i, m := range messages[:6] {
		require.Equal(t, []string{"", strconv.Itoa(i + 1)}, []string{m.event, m.id})
		var ev api.Event
		require.NoError(t, json.Unmarshal([]byte(m.data), &ev))
		require.EqualValues(t, i+1, ev.Sequence)
	}
	require.Equal(t, "end", messages[6].event)
}

func TestEventStreamResumesAfterLastEventIDWithoutDuplicateOrGap(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", runEvents(1, 9)...)
	h.runs.appendEvents("run-1", finished(10))

	resp := h.get("/v1/runs/run-1/events", map[string]string{"Last-Event-ID": "4"})
	messages := readSSE(t, resp)

	var ids []string
	for _, m := range messages {
		if m.id != "" {
			ids = append(ids, m.id)
		}
	}
	require.Equal(t, []string{"5", "6", "7", "8", "9", "10"}, ids)
}

func TestEventStreamEndsWhenTheWorkflowClosedWithoutAFinalEvent(t *testing.T) {
	h := waitingHarness(t, nil)
	h.runs.appendEvents("run-1", runEvents(1, 2)...)
	h.runs.setEnded("run-1")

	messages := readSSE(t, h.get("/v1/runs/run-1/events", nil))

	require.Len(t, messages, 3)
	require.Equal(t, "end", messages[2].event)
}

func TestEventStreamCarriesRefusalsWithoutAnID(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	resp := h.get("/v1/runs/run-1/events", nil)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	refusal := h.signedPost(decisionPath, decisionBody(t, "approve", "mallory", "", "r-1"), testNow)
	require.Equal(t, http.StatusForbidden, refusal.StatusCode)
	// The refusal is also recorded in the run, as its event 1.
	h.runs.appendEvents("run-1", finished(2))
	messages := readSSE(t, resp)

	require.Len(t, messages, 4)
	var refusals, runEvents []sseMessage
	for _, m := range messages {
		switch m.event {
		case "refusal":
			refusals = append(refusals, m)
		case "":
			runEvents = append(runEvents, m)
		}
	}
	require.Len(t, refusals, 1)
	require.Empty(t, refusals[0].id)
	require.Contains(t, refusals[0].data, "mallory is not an approver")
	require.Len(t, runEvents, 2)
	require.Equal(t, "1", runEvents[0].id)
	require.Contains(t, runEvents[0].data, `"type":"signal_ignored"`)
	require.Contains(t, runEvents[0].data, "refused by the approval server (signed API): mallory is not an approver")
	require.Equal(t, "2", runEvents[1].id)
	require.Equal(t, "end", messages[3].event)
}

func TestEventStreamRefusesABadLastEventIDAndAnUnknownRun(t *testing.T) {
	h := waitingHarness(t, nil)

	require.Equal(t, http.StatusBadRequest, h.get("/v1/runs/run-1/events", map[string]string{"Last-Event-ID": "abc"}).StatusCode)
	require.Equal(t, http.StatusNotFound, h.get("/v1/runs/run-9/events", nil).StatusCode)
}
