package ghsandbox

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// Queue holds the faults waiting for their requests. It is safe for
// concurrent use.
type Queue struct {
	ops map[string]bool

	mu     sync.Mutex
	faults []Fault
}

// NewQueue is an empty queue for faults on ops.
func NewQueue(ops []string) *Queue {
	q := &Queue{ops: map[string]bool{}}
	for _, op := range ops {
		q.ops[op] = true
	}
	return q
}

// Add queues all of faults behind those already queued or, if one is
// invalid, none.
func (q *Queue) Add(faults []Fault) error {
	normalized := make([]Fault, 0, len(faults))
	for i, f := range faults {
		n, err := f.normalized(q.ops)
		if err != nil {
			return fmt.Errorf("fault %d: %w", i, err)
		}
		normalized = append(normalized, n)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	q.faults = append(q.faults, normalized...)
	return nil
}

// List returns the queued faults with the counts that remain.
func (q *Queue) List() []Fault {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]Fault{}, q.faults...)
}

// Clear drops every queued fault.
func (q *Queue) Clear() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.faults = nil
}

// Take consumes one use of the first queued fault for op.
func (q *Queue) Take(op string) (Fault, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.faults {
		if q.faults[i].Op != op {
			continue
		}
		if q.faults[i].After > 0 {
			q.faults[i].After--
			return Fault{}, false
		}
		f := q.faults[i]
		q.faults[i].Count--
		if q.faults[i].Count == 0 {
			q.faults = append(q.faults[:i], q.faults[i+1:]...)
		}
		return f, true
	}
	return Fault{}, false
}

// Decode reads one fault object or an array of them.
func Decode(r io.Reader) ([]Fault, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("read body: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("empty body; send a fault object or an array of them")
	}
	var faults []Fault
	if raw[0] == '[' {
		err = DecodeStrict(raw, &faults)
	} else {
		var f Fault
		err = DecodeStrict(raw, &f)
		faults = []Fault{f}
	}
	if err != nil {
		return nil, err
	}
	return faults, nil
}
