package approvalsrv

import (
	"sync"
	"time"
)

// Refusal is a decision the server turned down, kept so that the run's page
// can say why a comment or a click changed nothing.
type Refusal struct {
	Seq      int64     `json:"seq"`
	At       time.Time `json:"at"`
	Channel  string    `json:"channel"`
	Who      string    `json:"who"`
	ActionID string    `json:"actionId"`
	Reason   string    `json:"reason"`
}

// refusalLog keeps the latest refusals of the most recently refused runs.
// It is in memory: the server's log holds the full record.
type refusalLog struct {
	mu      sync.Mutex
	byRun   map[string]*runRefusals
	runs    []string
	perRun  int
	maxRuns int
}

type runRefusals struct {
	next  int64
	items []Refusal
}

func newRefusalLog(perRun, maxRuns int) *refusalLog {
	return &refusalLog{byRun: make(map[string]*runRefusals), perRun: perRun, maxRuns: maxRuns}
}

func (l *refusalLog) add(runID string, r Refusal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rr, ok := l.byRun[runID]
	if !ok {
		rr = &runRefusals{}
		l.byRun[runID] = rr
		l.runs = append(l.runs, runID)
		if len(l.runs) > l.maxRuns {
			delete(l.byRun, l.runs[0])
			l.runs = l.runs[1:]
		}
	}
	rr.next++
	r.Seq = rr.next
	rr.items = append(rr.items, r)
	if len(rr.items) > l.perRun {
		rr.items = rr.items[len(rr.items)-l.perRun:]
	}
}

// since returns the run's refusals with Seq > after, oldest first.
func (l *refusalLog) since(runID string, after int64) []Refusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	rr, ok := l.byRun[runID]
	if !ok {
		return nil
	}
	var out []Refusal
	for _, r := range rr.items {
		if r.Seq > after {
			out = append(out, r)
		}
	}
	return out
}

// last returns the Seq of the run's latest refusal, 0 when there is none.
func (l *refusalLog) last(runID string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rr, ok := l.byRun[runID]; ok {
		return rr.next
	}
	return 0
}
