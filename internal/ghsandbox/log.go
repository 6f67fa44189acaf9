package ghsandbox

import (
	"net/http"
	"sync"
	"time"
)

// maxRequestLog bounds the request log of a long-lived sandbox; the oldest
// entries go first.
const maxRequestLog = 10000

// RequestRecord is one API request as the sandbox saw it.
type RequestRecord struct {
	Op     string    `json:"op"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	At     time.Time `json:"at"`
	// Status is what the handler produced; with a drop_response fault it was
	// never sent.
	Status int `json:"status"`
	// Fault is the mode of the fault applied to this request, if any.
	Fault string `json:"fault"`
}

// Log is the request log. It is safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	records []RequestRecord
	// dropped counts entries evicted by maxRequestLog, so that a handler can
	// still find its own entry by absolute index.
	dropped int
}

// Arrive records a request for op and returns its entry for Outcome.
func (l *Log) Arrive(op string, r *http.Request) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.records) >= maxRequestLog {
		l.records = l.records[1:]
		l.dropped++
	}
	l.records = append(l.records, RequestRecord{Op: op, Method: r.Method, Path: r.URL.Path, At: time.Now().UTC()})
	return l.dropped + len(l.records) - 1
}

// Outcome completes entry with the status produced and the fault applied.
func (l *Log) Outcome(entry, status int, fault string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := entry - l.dropped
	if i < 0 || i >= len(l.records) {
		return
	}
	l.records[i].Status = status
	l.records[i].Fault = fault
}

// Records returns the log, oldest first.
func (l *Log) Records() []RequestRecord {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]RequestRecord(nil), l.records...)
}

// Clear empties the log.
func (l *Log) Clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dropped += len(l.records)
	l.records = nil
}
