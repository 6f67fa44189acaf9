package approvalsrv

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/agentrun/agentrun/api"
)

// memo remembers the answer to each request key so that a repeated
// request answers as the first did and sends nothing new. A request that
// arrives while the first is still being handled waits for its answer.
// Answers that say the server could not finish (5xx), or not now (429, a
// cap that a worker's return lifts), are forgotten so that a retry gets a
// real attempt.
//
// It lives in memory: after a restart the workflow's own record of requestIds
// (PendingAction.RequestKeys) recognises repeats instead.
type memo struct {
	mu      sync.Mutex
	answers map[string]*memoEntry
	order   []string
	max     int
	// repeats counts requests answered from the memo (or waiting for the
	// first one's answer); tests read it (Repeats) to know duplicates have
	// arrived.
	repeats atomic.Int64
}

type memoEntry struct {
	done chan struct{}
	// body is what the first request asked for; a repeat that asks for
	// something else is a client bug, not a repeat.
	body   string
	answer outcome
}

// Repeats is how many requests were answered from the memo so far.
func (m *memo) Repeats() int64 { return m.repeats.Load() }

// newMemo remembers the answers to at most max request keys.
func newMemo(max int) *memo {
	return &memo{answers: make(map[string]*memoEntry), max: max}
}

// Do returns the remembered answer for key, or computes it with handle. A
// request whose body differs from the first one's under the same key is
// refused with 409 and changes nothing.
func (m *memo) Do(key, body string, handle func() outcome) outcome {
	m.mu.Lock()
	if e, ok := m.answers[key]; ok {
		m.mu.Unlock()
		m.repeats.Add(1)
		if e.body != body {
			return refused(http.StatusConflict, "this requestId was already used for a different decision or reason; use a new requestId")
		}
		<-e.done
		return e.answer
	}
	e := &memoEntry{done: make(chan struct{}), body: body}
	m.answers[key] = e
	m.order = append(m.order, key)
	m.evictLocked()
	m.mu.Unlock()

	e.answer = handle()
	close(e.done)
	if e.answer.Code >= 500 || e.answer.Code == http.StatusTooManyRequests {
		m.forget(key, e)
	}
	return e.answer
}

func (m *memo) forget(key string, e *memoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers[key] == e {
		delete(m.answers, key)
	}
}

// evictLocked drops the oldest keys; their order slice entries may be stale
// after forget, which only makes eviction drop less.
func (m *memo) evictLocked() {
	for len(m.order) > m.max {
		oldest := m.order[0]
		e, ok := m.answers[oldest]
		if ok && !settled(e.done) {
			// Still being handled: dropping it from order would leak it.
			return
		}
		m.order = m.order[1:]
		if ok {
			delete(m.answers, oldest)
		}
	}
}

// settled reports whether done is closed: whether a computation others
// wait on has finished.
func settled(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// decisionMemoKey is the one rule for what makes two decisions "the same
// request": the run, the action, and the workflow's own RequestKey (channel,
// authenticated approver, requestId), so that nobody can replay or burn
// another person's requestId. runID is empty for a GitHub comment, whose
// action ID alone names the run.
func decisionMemoKey(runID, actionID string, in Decision, channel string) string {
	return runID + "\x00" + actionID + "\x00" + api.RequestKey(channel, in.Approver, in.RequestID)
}

// decisionMemoBody is what a repeat must ask for again to be a repeat.
func decisionMemoBody(in Decision) string {
	return in.Decision + "\x00" + in.Reason + "\x00" + in.ArgsHash + "\x00" + string(in.Args)
}

// resolveMemoBody is what a repeated resolve must ask for again.
func resolveMemoBody(req resolveRequest) string {
	return req.Decision + "\x00" + req.ExternalResourceID + "\x00" + req.By
}
