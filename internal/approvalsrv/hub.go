// This file serves a run's events as Server-Sent Events. All streams of a
// run share one poller of the run's events query; streams are capped in
// total and per user or address.

package approvalsrv

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentrun/agentrun/api"
)

// Caps on event streams. Each open stream holds a connection and a goroutine;
// the caps keep one person (or one address) from holding them all.
const (
	maxEventStreams            = 1000
	maxEventStreamsPerIdentity = 20
	// subscriberBacklog bounds the events waiting for a slow stream; past it
	// the stream ends and the client resumes with Last-Event-ID.
	subscriberBacklog = 1024
	// retryAfter is the Retry-After of a stream refused over the caps.
	retryAfter = "10"
)

// eventSource is what the hub reads of runs.
type eventSource interface {
	// Events returns the run's events after sinceSequence, in order.
	Events(ctx context.Context, runID string, sinceSequence int64) ([]api.Event, error)
	// Ended tells whether the run's workflow is no longer running.
	Ended(ctx context.Context, runID string) (bool, error)
}

// tooManyStreams refuses a stream over the caps; its text is for the caller.
type tooManyStreams struct{ Message string }

func (e *tooManyStreams) Error() string { return e.Message }

// hub runs one poller per run, shared by every stream of that run, so
// that Temporal sees one events query per poll interval per run however many
// pages are open. The poller starts with a run's first stream and stops with
// its last.
type hub struct {
	runs     eventSource
	interval time.Duration
	logger   *slog.Logger

	mu          sync.Mutex
	pollers     map[string]*runPoller
	perIdentity map[string]int
	open        int
	// Caps; tests lower them.
	maxTotal, maxPerIdentity int
	// running counts poller goroutines that have not returned yet.
	running atomic.Int64
}

// newHub polls runs every interval for the streams it serves.
func newHub(runs eventSource, interval time.Duration, logger *slog.Logger) *hub {
	return &hub{
		runs: runs, interval: interval, logger: logger,
		pollers: map[string]*runPoller{}, perIdentity: map[string]int{},
		maxTotal: maxEventStreams, maxPerIdentity: maxEventStreamsPerIdentity,
	}
}

// admit counts a new stream against the caps; release gives its place back.
func (h *hub) admit(identity string) (release func(), err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open >= h.maxTotal {
		return nil, &tooManyStreams{"the server has too many event streams open; try again later"}
	}
	if h.perIdentity[identity] >= h.maxPerIdentity {
		return nil, &tooManyStreams{fmt.Sprintf("you have %d event streams open, the most allowed; close a run page and try again", h.maxPerIdentity)}
	}
	h.open++
	h.perIdentity[identity]++
	var once sync.Once
	return func() {
		once.Do(func() {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.open--
			if h.perIdentity[identity]--; h.perIdentity[identity] <= 0 {
				delete(h.perIdentity, identity)
			}
		})
	}, nil
}

// runPoller polls one run for every subscriber of it.
type runPoller struct {
	runID  string
	subs   map[*subscriber]struct{}
	cursor int64 // the last sequence fetched; written under hub.mu
	cancel context.CancelFunc
}

// subscriber is one stream's mailbox: the poller appends, the stream takes.
type subscriber struct {
	notify chan struct{}
	poller *runPoller

	mu     sync.Mutex
	events []api.Event
	closed bool // the run ended without a final status event
	err    error
}

// join subscribes to runID, starting its poller if it has none. A stream
// joins before its first query, so that whatever the poller fetches after
// that query's moment reaches it: no gap between the two.
func (h *hub) join(ctx context.Context, runID string, since int64) *subscriber {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, ok := h.pollers[runID]
	if !ok {
		// The poller serves many requests: it must not end with the first.
		pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		p = &runPoller{runID: runID, subs: map[*subscriber]struct{}{}, cursor: since, cancel: cancel}
		h.pollers[runID] = p
		h.running.Add(1)
		go h.poll(pctx, p)
	}
	// since is the client's word (Last-Event-ID): one past the run's real
	// last event must not hide new events from the run's other streams.
	// Lowering the cursor costs one larger query; each stream drops what it
	// has already sent.
	p.cursor = min(p.cursor, since)
	sub := &subscriber{notify: make(chan struct{}, 1), poller: p}
	p.subs[sub] = struct{}{}
	return sub
}

// leave unsubscribes; the run's last stream to leave stops its poller.
func (h *hub) leave(sub *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p := sub.poller
	delete(p.subs, sub)
	if len(p.subs) == 0 {
		p.cancel()
		if h.pollers[p.runID] == p {
			delete(h.pollers, p.runID)
		}
	}
}

func (h *hub) poll(ctx context.Context, p *runPoller) {
	defer h.running.Add(-1)
	ticker := time.NewTicker(h.interval)
	defer ticker.Stop()
	var lastEndedCheck time.Time // zero: the first quiet poll checks at once
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		events, closed, err := h.pollOnce(ctx, p, &lastEndedCheck)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			h.logger.Info("event stream poller stopped", "run", p.runID, "err", err)
		}
		if h.deliver(p, events, closed, err) {
			return
		}
	}
}

// pollOnce fetches what is new after the cursor and, when the run has been
// quiet for a while, whether its workflow closed without a final event.
func (h *hub) pollOnce(ctx context.Context, p *runPoller, lastEndedCheck *time.Time) ([]api.Event, bool, error) {
	h.mu.Lock()
	cursor := p.cursor
	h.mu.Unlock()
	events, err := h.runs.Events(ctx, p.runID, cursor)
	if err != nil {
		return nil, false, fmt.Errorf("poll events: %w", err)
	}
	if len(events) > 0 || time.Since(*lastEndedCheck) < endedCheckEvery {
		return events, false, nil
	}
	*lastEndedCheck = time.Now()
	closed, err := h.runs.Ended(ctx, p.runID)
	if err != nil {
		return nil, false, fmt.Errorf("check run ended: %w", err)
	}
	if !closed {
		return nil, false, nil
	}
	// A last query takes whatever the run recorded before it closed.
	if events, err = h.runs.Events(ctx, p.runID, cursor); err != nil {
		return nil, false, fmt.Errorf("final events: %w", err)
	}
	return events, true, nil
}

// deliver hands a poll's outcome to every subscriber (an empty poll too: it
// is their moment to send refusals and keep-alives) and reports whether the
// poller is done. A done poller leaves the hub, so that a later stream of
// the same run starts afresh.
func (h *hub) deliver(p *runPoller, events []api.Event, closed bool, err error) bool {
	done := closed || err != nil || hasFinalStatus(events)
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(events); n > 0 {
		p.cursor = max(p.cursor, events[n-1].Sequence)
	}
	for sub := range p.subs {
		sub.put(events, closed, err)
	}
	if done {
		p.cancel()
		if h.pollers[p.runID] == p {
			delete(h.pollers, p.runID)
		}
	}
	return done
}

func (sub *subscriber) put(events []api.Event, closed bool, err error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	sub.events = append(sub.events, events...)
	sub.closed = sub.closed || closed
	if err == nil && len(sub.events) > subscriberBacklog {
		err = fmt.Errorf("the stream fell %d events behind", len(sub.events))
	}
	if err != nil && sub.err == nil {
		sub.err = err
	}
	select {
	case sub.notify <- struct{}{}:
	default: // a notification is already pending; take gets everything
	}
}

// take empties the mailbox.
func (sub *subscriber) take() ([]api.Event, bool, error) {
	sub.mu.Lock()
	defer sub.mu.Unlock()
	events := sub.events
	sub.events = nil
	return events, sub.closed, sub.err
}

func hasFinalStatus(events []api.Event) bool {
	for _, ev := range events {
		if ev.Type == api.EventRunStatus && api.RunStatus(ev.Status).IsTerminal() {
			return true
		}
	}
	return false
}

// Pollers is how many runs have a poller registered, and how many poller
// goroutines have not returned yet.
func (h *hub) Pollers() (registered, running int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pollers), int(h.running.Load())
}

// SetCaps lowers the caps on streams in total and per identity; tests do.
func (h *hub) SetCaps(total, perIdentity int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.maxTotal, h.maxPerIdentity = total, perIdentity
}

// OpenStreams is how many streams hold a place under the caps.
func (h *hub) OpenStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open
}
