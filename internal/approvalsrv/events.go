package approvalsrv

import (
	"errors"
	"net"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// handleEvents serves GET /v1/runs/{runId}/events (and the page's
// /runs/{runId}/events) as Server-Sent Events (package sse). Besides the
// run's events, the stream carries this process's refusals of the run as
// "refusal" events while it is open; the page shows older ones itself.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	since, err := LastEventID(r)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	logger := s.logger.With("run", runID)
	stream, err := s.streams.Open(r.Context(), runID, since, streamIdentity(r))
	var tooMany *TooManyStreams
	switch {
	case errors.As(err, &tooMany):
		logger.Info("event stream refused", "reason", tooMany.Message, "peer", r.RemoteAddr)
		w.Header().Set("Retry-After", RetryAfter)
		writeError(w, http.StatusTooManyRequests, tooMany.Message)
		return
	case err != nil:
		writeOutcome(w, TemporalFailure(logger, err, "events query"))
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
type refusalExtras struct{ log *Keeper }

func (x refusalExtras) Last(runID string) int64 { return x.log.Last(runID) }

func (x refusalExtras) Since(runID string, after int64) []Extra {
	refusals := x.log.Since(runID, after)
	extras := make([]Extra, len(refusals))
	for i, r := range refusals {
		extras[i] = Extra{Event: "refusal", Seq: r.Seq, Data: r}
	}
	return extras
}
