package approvalsrv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
)

const (
	// endedCheckEvery spaces the describe calls that notice a run that ended
	// without a final run_status event (terminated, or failed in a bug).
	endedCheckEvery = 2 * time.Second
	sseKeepAlive    = 15 * time.Second
	sseWriteTimeout = 30 * time.Second
	sseRetryMillis  = 2000
)

// handleEvents serves GET /v1/runs/{runId}/events (and the page's
// /runs/{runId}/events) as Server-Sent Events. Each run event goes out as a
// message whose id is its sequence number, so that Last-Event-ID resumes
// right after it. Refusals go out as "refusal" events without an id (they are
// not part of the run's sequence) and only while the stream is open; the page
// shows older ones itself. The stream ends with an "end" event when the run
// ends. Every stream of a run is fed by the run's one poller (streamHub).
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	since, err := lastEventID(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	logger := s.logger.With("run", runID)
	release, o := s.streams.admit(streamIdentity(r))
	if !o.ok() {
		logger.Info("event stream refused", "reason", o.Error, "peer", r.RemoteAddr)
		w.Header().Set("Retry-After", streamRetryAfter)
		writeOutcome(w, o)
		return
	}
	defer release()
	sub := s.streams.join(r.Context(), runID, since)
	defer s.streams.leave(sub)
	events, err := s.runs.Events(r.Context(), runID, since)
	if err != nil {
		writeOutcome(w, s.temporalFailure(logger, err, "events query"))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	// The server's ReadTimeout would otherwise cancel a long-lived stream.
	_ = rc.SetReadDeadline(time.Time{})
	stream := &eventStream{
		w: w, rc: rc, since: since,
		refusalSeq: s.refusals.last(runID), lastWrite: time.Now(),
	}
	if err := stream.write(fmt.Sprintf("retry: %d\n\n", sseRetryMillis)); err != nil {
		return
	}
	if err := s.streamEvents(r.Context(), logger, runID, stream, sub, events); err != nil && !errors.Is(err, context.Canceled) {
		logger.Info("event stream stopped", "err", err)
	}
}

type eventStream struct {
	w          http.ResponseWriter
	rc         *http.ResponseController
	since      int64
	refusalSeq int64
	lastWrite  time.Time
}

// streamEvents returns nil when the run has ended and the end event is out,
// or an error when the client left, fell behind or Temporal failed; the
// client then reconnects with Last-Event-ID.
func (s *Server) streamEvents(ctx context.Context, logger *slog.Logger, runID string, stream *eventStream, sub *subscriber, events []api.Event) error {
	for {
		ended, err := s.sendBatch(stream, runID, events)
		if err != nil {
			return err
		}
		if ended {
			return stream.write("event: end\ndata: {}\n\n")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-sub.notify:
		}
		var closed bool
		events, closed, err = sub.take()
		if closed {
			if _, err := s.sendBatch(stream, runID, events); err != nil {
				return err
			}
			logger.Debug("run ended without a final status event")
			return stream.write("event: end\ndata: {}\n\n")
		}
		if err != nil {
			return err
		}
	}
}

// sendBatch writes new events and refusals, then flushes; it reports whether
// a final run status went out.
func (s *Server) sendBatch(stream *eventStream, runID string, events []api.Event) (bool, error) {
	var buf strings.Builder
	ended := false
	for _, ev := range events {
		if ev.Sequence <= stream.since {
			continue
		}
		data, err := json.Marshal(ev)
		if err != nil {
			return false, fmt.Errorf("encode event %d: %w", ev.Sequence, err)
		}
		fmt.Fprintf(&buf, "id: %d\ndata: %s\n\n", ev.Sequence, data)
		stream.since = ev.Sequence
		if ev.Type == api.EventRunStatus && runEnded(api.RunStatus(ev.Status)) {
			ended = true
		}
	}
	for _, refusal := range s.refusals.since(runID, stream.refusalSeq) {
		data, err := json.Marshal(refusal)
		if err != nil {
			return false, fmt.Errorf("encode refusal: %w", err)
		}
		fmt.Fprintf(&buf, "event: refusal\ndata: %s\n\n", data)
		stream.refusalSeq = refusal.Seq
	}
	if buf.Len() == 0 && time.Since(stream.lastWrite) >= sseKeepAlive {
		buf.WriteString(": keep-alive\n\n")
	}
	if buf.Len() == 0 {
		return ended, nil
	}
	stream.lastWrite = time.Now()
	return ended, stream.write(buf.String())
}

func (st *eventStream) write(chunk string) error {
	// A client that stops reading must not hold the handler forever; a
	// ResponseWriter without deadlines (tests) is fine without one.
	_ = st.rc.SetWriteDeadline(time.Now().Add(sseWriteTimeout))
	if _, err := st.w.Write([]byte(chunk)); err != nil {
		return fmt.Errorf("write event stream: %w", err)
	}
	if err := st.rc.Flush(); err != nil {
		return fmt.Errorf("flush event stream: %w", err)
	}
	return nil
}

// lastEventID reads where to resume: the Last-Event-ID header an EventSource
// sends on reconnect, or a lastEventId query parameter for a first connect.
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
