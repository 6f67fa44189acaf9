// This file serves a run's events as Server-Sent Events, on the signed API
// and on the run's page, and writes them; hub.go shares one poller of the
// run's events query among a run's streams.

package approvalsrv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// handleEvents serves GET /v1/runs/{runId}/events (and the page's
// /runs/{runId}/events) as Server-Sent Events. Besides the
// run's events, the stream carries this process's refusals of the run as
// "refusal" events while it is open; the page shows older ones itself.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	since, err := lastEventID(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	logger := s.logger.With("run", runID)
	stream, err := s.streams.Open(r.Context(), runID, since, streamIdentity(r))
	var tooMany *tooManyStreams
	switch {
	case errors.As(err, &tooMany):
		logger.Info("event stream refused", "reason", tooMany.Message, "peer", r.RemoteAddr)
		w.Header().Set("Retry-After", retryAfter)
		writeError(w, http.StatusTooManyRequests, tooMany.Message)
		return
	case err != nil:
		writeOutcome(w, temporalFailure(logger, err, "events query"))
		return
	}
	defer stream.Close()
	stream.Serve(r.Context(), w, refusalExtras{s.refusals}, logger)
}

// streamIdentity is whom a stream counts against: the signed-in user, or
// the peer's address when the route has no user (the signed API, dev mode).
// A login in another case is the same person (the page guard lets through
// only ASCII logins, so lower-casing them is GitHub's rule).
func streamIdentity(r *http.Request) string {
	if user := auth.IdentityFrom(r.Context()); user != "" {
		return "user:" + strings.ToLower(user)
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}

// refusalExtras are the refusals a run's streams carry.
type refusalExtras struct{ log *keeper }

func (x refusalExtras) Last(runID string) int64 { return x.log.Last(runID) }

func (x refusalExtras) Since(runID string, after int64) []extra {
	refusals := x.log.Since(runID, after)
	extras := make([]extra, len(refusals))
	for i, r := range refusals {
		extras[i] = extra{Event: "refusal", Seq: r.Seq, Data: r}
	}
	return extras
}

const (
	// endedCheckEvery spaces the describe calls that notice a run that ended
	// without a final run_status event (terminated, or failed in a bug).
	endedCheckEvery = 2 * time.Second
	sseKeepAlive    = 15 * time.Second
	sseWriteTimeout = 30 * time.Second
	sseRetryMillis  = 2000
)

// extra is a message a stream carries besides the run's events, only while
// it is open (a refusal): it goes out as event Event without an id, as it is
// not part of the run's sequence.
type extra struct {
	Event string
	Seq   int64
	Data  any
}

// extras are the run's extras, numbered by Seq.
type extras interface {
	// Last is the Seq of the run's latest extra: a new stream sends only
	// later ones.
	Last(runID string) int64
	// Since returns the run's extras with Seq > after, oldest first.
	Since(runID string, after int64) []extra
}

// stream is one client's stream of one run, admitted under the caps and
// subscribed to the run's poller. Close it when the request ends.
type stream struct {
	hub     *hub
	runID   string
	since   int64
	first   []api.Event
	sub     *subscriber
	release func()
}

// Open admits a stream for identity (a *tooManyStreams error past the
// caps), joins the run's poller, then queries the events after since: the
// join comes first so that nothing between the query and the first poll is
// lost. A query error is the eventSource's, for the caller to answer.
func (h *hub) Open(ctx context.Context, runID string, since int64, identity string) (*stream, error) {
	release, err := h.admit(identity)
	if err != nil {
		return nil, err
	}
	sub := h.join(ctx, runID, since)
	events, err := h.runs.Events(ctx, runID, since)
	if err != nil {
		h.leave(sub)
		release()
		return nil, fmt.Errorf("events of %s after %d: %w", runID, since, err)
	}
	return &stream{hub: h, runID: runID, since: since, first: events, sub: sub, release: release}, nil
}

// Close leaves the poller and gives the stream's place back.
func (st *stream) Close() {
	st.hub.leave(st.sub)
	st.release()
}

// Serve writes the stream: each run event as a message whose id is its
// sequence number, so that Last-Event-ID resumes right after it, and the
// extras that arrive while it is open. It ends with an "end" event when the
// run ends, and returns early when the client leaves, falls behind or the
// poller fails; the client then reconnects with Last-Event-ID.
func (st *stream) Serve(ctx context.Context, w http.ResponseWriter, extras extras, logger *slog.Logger) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// The server's ReadTimeout would otherwise cancel a long-lived stream.
	_ = rc.SetReadDeadline(time.Time{})
	out := &writer{w: w, rc: rc, since: st.since, extras: extras, extraSeq: extras.Last(st.runID), lastWrite: time.Now()}
	if err := out.write(fmt.Sprintf("retry: %d\n\n", sseRetryMillis)); err != nil {
		return
	}
	if err := st.run(ctx, logger, out); err != nil && !errors.Is(err, context.Canceled) {
		logger.Info("event stream stopped", "err", err)
	}
}

type writer struct {
	w         http.ResponseWriter
	rc        *http.ResponseController
	since     int64
	extras    extras
	extraSeq  int64
	lastWrite time.Time
}

// run returns nil when the run has ended and the end event is out.
func (st *stream) run(ctx context.Context, logger *slog.Logger, out *writer) error {
	events := st.first
	for {
		ended, err := out.sendBatch(st.runID, events)
		if err != nil {
			return err
		}
		if ended {
			return out.write("event: end\ndata: {}\n\n")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-st.sub.notify:
		}
		var closed bool
		events, closed, err = st.sub.take()
		if closed {
			if _, err := out.sendBatch(st.runID, events); err != nil {
				return err
			}
			logger.Debug("run ended without a final status event")
			return out.write("event: end\ndata: {}\n\n")
		}
		if err != nil {
			return err
		}
	}
}

// sendBatch writes new events and extras, then flushes; it reports whether
// a final run status went out.
func (out *writer) sendBatch(runID string, events []api.Event) (bool, error) {
	var buf strings.Builder
	ended := false
	for _, ev := range events {
		if ev.Sequence <= out.since {
			continue
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return false, fmt.Errorf("encode event %d: %w", ev.Sequence, err)
		}
		fmt.Fprintf(&buf, "id: %d\ndata: %s\n\n", ev.Sequence, data)
		out.since = ev.Sequence
		if ev.Type == api.EventRunStatus && api.RunStatus(ev.Status).IsTerminal() {
			ended = true
		}
	}
	for _, extra := range out.extras.Since(runID, out.extraSeq) {
		data, err := json.Marshal(extra.Data)
		if err != nil {
			return false, fmt.Errorf("encode %s: %w", extra.Event, err)
		}
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", extra.Event, data)
		out.extraSeq = extra.Seq
	}
	if buf.Len() == 0 && time.Since(out.lastWrite) >= sseKeepAlive {
		buf.WriteString(": keep-alive\n\n")
	}
	if buf.Len() == 0 {
		return ended, nil
	}
	out.lastWrite = time.Now()
	return ended, out.write(buf.String())
}

func (out *writer) write(chunk string) error {
	// A client that stops reading must not hold the handler forever; a
	// ResponseWriter without deadlines (tests) is fine without one.
	_ = out.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if _, err := out.w.Write([]byte(chunk)); err != nil {
		return fmt.Errorf("write event stream: %w", err)
	}
	if err := out.rc.Flush(); err != nil {
		return fmt.Errorf("flush event stream: %w", err)
	}
	return nil
}

// lastEventID reads where to resume: the Last-Event-ID header an
// EventSource sends on reconnect, or a lastEventId query parameter for a
// first connect. Its error is for the caller.
func lastEventID(r *http.Request) (int64, error) {
	raw := r.Header.Get("Last-Event-ID")
	if raw == "" {
		raw = r.URL.Query().Get("lastEventId")
	}
	if raw == "" {
		return 0, nil
	}
	seq, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || seq < 0 {
		return 0, errors.New("Last-Event-ID must be a non-negative event sequence number")
	}
	return seq, nil
}
