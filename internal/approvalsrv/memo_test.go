package approvalsrv

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// waitUntil polls cond until it holds or the timeout passes; it is safe off
// the test goroutine, where require may not fail the test.
func waitUntil(cond func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

func (f *fakeRuns) signalCallCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.signalCalls
}

func TestOverlappingRepeatsOfOneRequestSendOneSignal(t *testing.T) {
	h := waitingHarness(t, nil)
	body := decisionBody(t, "approve", "alice", "", "req-1")
	const n = 8
	// The first signal is held until every duplicate has either reached the
	// memo (and waits for the first answer) or, without a memo, reached
	// Decide itself: so all n requests overlap, and without the
	// memo all n would be signalled.
	h.runs.signalGate = func(int) {
		waitUntil(func() bool {
			return h.server.answers.Repeats() >= n-1 || h.runs.signalCallCount() >= n
		}, 10*time.Second)
	}

	codes := make([]int, n)
	answers := make([]map[string]string, n)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := h.signedPost(decisionPath, body, testNow)
			codes[i], answers[i] = resp.StatusCode, replyOf(t, resp)
		}()
	}
	wg.Wait()

	require.Len(t, h.runs.approvalSignals(), 1)
	for i := range codes {
		require.Equal(t, http.StatusAccepted, codes[i])
		require.Equal(t, answers[0], answers[i])
	}
}

func TestSameRequestIDWithAnotherDecisionOrReasonAnswers409(t *testing.T) {
	cases := map[string][]byte{
		"another decision": decisionBody(t, "reject", "alice", "no", "req-1"),
		"another reason":   decisionBody(t, "reject", "alice", "other reason", "req-1"),
	}
	for name, second := range cases {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil)
			first := h.signedPost(decisionPath, decisionBody(t, "reject", "alice", "too harsh", "req-1"), testNow)
			require.Equal(t, http.StatusAccepted, first.StatusCode)
			queries, _, _, _ := h.runs.counts()

			resp := h.signedPost(decisionPath, second, testNow)

			require.Equal(t, http.StatusConflict, resp.StatusCode)
			require.Contains(t, replyOf(t, resp)["error"], "requestId was already used for a different decision or reason")
			require.Len(t, h.runs.approvalSignals(), 1)
			after, _, _, _ := h.runs.counts()
			require.Equal(t, queries, after, "a conflicting repeat queries nothing")
			require.Empty(t, h.runs.refusalSignals())
		})
	}
}

func TestIdenticalRepeatOfARefusalAnswersTheSameAndDoesNoNewWork(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	body := decisionBody(t, "approve", "mallory", "", "req-1")

	first := h.signedPost(decisionPath, body, testNow)
	queries, _, _, _ := h.runs.counts()
	again := h.signedPost(decisionPath, body, testNow)

	require.Equal(t, http.StatusForbidden, first.StatusCode)
	require.Equal(t, http.StatusForbidden, again.StatusCode)
	require.Equal(t, replyOf(t, first), replyOf(t, again))
	after, _, _, _ := h.runs.counts()
	require.Equal(t, queries, after)
	require.Len(t, h.runs.refusalSignals(), 1)
}

func TestSameRequestIDFromAnotherApproverOrChannelIsAnotherRequest(t *testing.T) {
	h := waitingHarness(t, nil, "alice", "bob")

	// Bob's requestId is his own: he hears about the action, not about
	// alice's requestId.
	h.requireTooLateAfterAlice(decisionBody(t, "reject", "bob", "late", "req-1"))
}

func TestMemoKeyBindsChannelAndApproverThroughTheWorkflowsRequestKey(t *testing.T) {
	req := Decision{Decision: "approve", Approver: "Alice", RequestID: "r-1"}
	lower := req
	lower.Approver = "alice"

	require.Equal(t, decisionMemoKey("run-1", "act-1", req, channelAPI), decisionMemoKey("run-1", "act-1", lower, channelAPI),
		"logins compare case-insensitively, as in the workflow")
	require.NotEqual(t, decisionMemoKey("run-1", "act-1", req, channelAPI), decisionMemoKey("run-1", "act-1", req, channelWeb))
	require.Contains(t, decisionMemoKey("run-1", "act-1", req, channelAPI), api.RequestKey(channelAPI, "alice", "r-1"))
}

func TestMemoForgetsTheOldestAnswersButNeverOneBeingComputed(t *testing.T) {
	m := newMemo(2)
	calls := map[string]int{}
	answerFor := func(key string) outcome {
		return m.Do(key, "", func() outcome { calls[key]++; return accepted(key) })
	}
	release := make(chan struct{})
	inFlight := make(chan outcome)
	go func() {
		inFlight <- m.Do("slow", "", func() outcome { <-release; return accepted("slow") })
	}()
	require.Eventually(t, func() bool { m.mu.Lock(); defer m.mu.Unlock(); return len(m.answers) == 1 }, 10*time.Second, time.Millisecond)

	answerFor("a")
	answerFor("b")
	answerFor("c")
	close(release)
	require.Equal(t, accepted("slow"), <-inFlight)
	require.Equal(t, accepted("slow"), m.Do("slow", "", func() outcome { return accepted("again") }),
		"an answer still being computed when it was the oldest is kept")
	answerFor("d")
	answerFor("a")
	answerFor("d")
	require.Equal(t, 2, calls["a"], "past the cap the oldest answer is forgotten")
	require.Equal(t, 1, calls["d"], "the newest answer is remembered")
}

func TestMemoForgetsServerFailuresSoThatARetryIsReal(t *testing.T) {
	m := newMemo(10)
	first := m.Do("k", "", func() outcome { return refused(http.StatusInternalServerError, "internal error") })
	second := m.Do("k", "", func() outcome { return accepted("sent") })
	third := m.Do("k", "", func() outcome { return accepted("twice") })

	require.Equal(t, http.StatusInternalServerError, first.Code)
	require.Equal(t, accepted("sent"), second)
	require.Equal(t, accepted("sent"), third)
}
