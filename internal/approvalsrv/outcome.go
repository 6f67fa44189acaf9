package approvalsrv

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
)

// outcome is the answer to a decision, resolve or webhook request: a status
// code with {status} for success or {error} otherwise. Its text never holds
// internal error details.
type outcome struct {
	Code   int
	Status string
	Error  string
	// State and DecidedBy say, on a 409, what became of the action, so that
	// a client can tell "already approved by bob" from "expired" without
	// parsing the error text.
	State     string
	DecidedBy string
}

func accepted(status string) outcome { return outcome{Code: http.StatusAccepted, Status: status} }

func refused(code int, reason string) outcome { return outcome{Code: code, Error: reason} }

func (o outcome) ok() bool { return o.Code < 300 }

func (o outcome) body() map[string]string {
	if o.ok() {
		return map[string]string{"status": o.Status}
	}
	body := map[string]string{"error": o.Error}
	if o.State != "" {
		body["state"] = o.State
	}
	if o.DecidedBy != "" {
		body["decidedBy"] = o.DecidedBy
	}
	return body
}

func writeOutcome(w http.ResponseWriter, o outcome) {
	if o.Code == http.StatusNoContent {
		w.WriteHeader(o.Code)
		return
	}
	writeJSON(w, o.Code, o.body())
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// The status line is already out; a failed write means the client left.
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// temporalFailure turns an error from Runs into the answer for the caller and
// logs what the caller is not told.
func (s *Server) temporalFailure(logger *slog.Logger, err error, what string) outcome {
	switch {
	case errors.Is(err, ErrRunNotFound):
		return refused(http.StatusNotFound, "unknown run")
	case errors.Is(err, ErrTemporalUnavailable):
		logger.Warn("temporal unavailable", "during", what, "err", err)
		return refused(http.StatusServiceUnavailable, "temporal is unreachable; try again later")
	default:
		logger.Error("temporal call failed", "during", what, "err", err)
		return refused(http.StatusInternalServerError, "internal error")
	}
}
