package approvalsrv

import "sync"

// answerMemo remembers the answer to each request key (a requestId or a
// GitHub delivery ID) so that a repeated request answers as the first did and
// sends nothing new. A request that arrives while the first is still being
// handled waits for its answer. Answers that say the server could not finish
// (5xx) are forgotten so that a retry gets a real attempt.
//
// It lives in memory: after a restart the workflow's own record of requestIds
// (PendingAction.RequestKeys) recognises repeats instead.
type answerMemo struct {
	mu      sync.Mutex
	answers map[string]*memoEntry
	order   []string
	max     int
}

type memoEntry struct {
	done   chan struct{}
	answer outcome
}

func newAnswerMemo(max int) *answerMemo {
	return &answerMemo{answers: make(map[string]*memoEntry), max: max}
}

// do returns the remembered answer for key, or computes it with handle.
func (m *answerMemo) do(key string, handle func() outcome) outcome {
	m.mu.Lock()
	if e, ok := m.answers[key]; ok {
		m.mu.Unlock()
		<-e.done
		return e.answer
	}
	e := &memoEntry{done: make(chan struct{})}
	m.answers[key] = e
	m.order = append(m.order, key)
	m.evictLocked()
	m.mu.Unlock()

	e.answer = handle()
	close(e.done)
	if e.answer.Code >= 500 {
		m.forget(key, e)
	}
	return e.answer
}

func (m *answerMemo) forget(key string, e *memoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.answers[key] == e {
		delete(m.answers, key)
	}
}

// evictLocked drops the oldest keys; their order slice entries may be stale
// after forget, which only makes eviction drop less.
func (m *answerMemo) evictLocked() {
	for len(m.order) > m.max {
		oldest := m.order[0]
		m.order = m.order[1:]
		if e, ok := m.answers[oldest]; ok && isClosed(e.done) {
			delete(m.answers, oldest)
		}
	}
}

func isClosed(done chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}
