package approvalsrv

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// Caps on event streams. Each open stream holds a connection and a goroutine;
// the caps keep one person (or one address) from holding them all.
const (
	maxEventStreams            = 1000
	maxEventStreamsPerIdentity = 20
	// subscriberBacklog bounds the events waiting for a slow stream; past it
	// the stream ends and the client resumes with Last-Event-ID.
	subscriberBacklog = 1024
	streamRetryAfter  = "10"
)

// streamHub runs one poller per run, shared by every stream of that run, so
// that Temporal sees one events query per poll interval per run however many
// pages are open. The poller starts with a run's first stream and stops with
// its last.
type streamHub struct {
	runs     Runs
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

func newStreamHub(runs Runs, interval time.Duration, logger *slog.Logger) *streamHub {
	return &streamHub{
		runs: runs, interval: interval, logger: logger,
		pollers: map[string]*runPoller{}, perIdentity: map[string]int{},
		maxTotal: maxEventStreams, maxPerIdentity: maxEventStreamsPerIdentity,
	}
}

// streamIdentity is whom a stream counts against: the signed-in user, or
// the peer's address when the route has no user (the signed API, dev mode).
func streamIdentity(r *http.Request) string {
	if user := auth.IdentityFrom(r.Context()); user != "" {
		return "user:" + user
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// admit counts a new stream against the caps; release gives its place back.
func (h *streamHub) admit(identity string) (release func(), o outcome) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.open >= h.maxTotal {
		return nil, refused(http.StatusTooManyRequests, "the server has too many event streams open; try again later")
	}
	if h.perIdentity[identity] >= h.maxPerIdentity {
		return nil, refused(http.StatusTooManyRequests,
			fmt.Sprintf("you have %d event streams open, the most allowed; close a run page and try again", h.maxPerIdentity))
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
	}, accepted("")
}

// runPoller polls one run for every subscriber of it.
type runPoller struct {
	runID  string
	subs   map[*subscriber]struct{}
	cursor int64 // the last sequence fetched; written under streamHub.mu
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
func (h *streamHub) join(ctx context.Context, runID string, since int64) *subscriber {
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
func (h *streamHub) leave(sub *subscriber) {
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

func (h *streamHub) poll(ctx context.Context, p *runPoller) {
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
func (h *streamHub) pollOnce(ctx context.Context, p *runPoller, lastEndedCheck *time.Time) ([]api.Event, bool, error) {
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
func (h *streamHub) deliver(p *runPoller, events []api.Event, closed bool, err error) bool {
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
		if ev.Type == api.EventRunStatus && runEnded(api.RunStatus(ev.Status)) {
			return true
		}
	}
	return false
}

// activePollers is how many runs have a poller registered.
func (h *streamHub) activePollers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.pollers)
}

// openStreams is how many streams hold a place under the caps.
func (h *streamHub) openStreams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.open
}
