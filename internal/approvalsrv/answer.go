// This file is how the approval server answers an API call, a
// webhook delivery or a form post: a status code with {status} or {error},
// whose text never holds internal error details.

package approvalsrv

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
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
	// parsing the error text. A hold or release says its outcome in State
	// (api.HoldAnswer.Outcome), whatever the code.
	State     string
	DecidedBy string
	// LastKnown is, on a command Recorded while no worker answers for the
	// run, the run's last known state (runclient.LastKnownLine).
	LastKnown string
	// RetryAfter, when set, says when the caller may try again (a cap's
	// 429): it is sent as Retry-After.
	RetryAfter time.Duration
}

// accepted is a 202 saying status.
func accepted(status string) outcome { return outcome{Code: http.StatusAccepted, Status: status} }

// Recorded is a 202 for a command signalled while no worker answered for
// the run: Temporal keeps the signal and the run applies it, or ignores it
// with its reason, when a worker picks it up. last is the run as it was
// last known.
func recorded(last api.RunSnapshot) outcome {
	return outcome{Code: http.StatusAccepted, Status: runclient.RecordedNote, LastKnown: runclient.LastKnownLine(last)}
}

// Recorded reports a command that waits for a worker (see Recorded).
func (o outcome) recorded() bool { return o.OK() && o.LastKnown != "" }

// Refused is code with reason, which is written for the caller.
func refused(code int, reason string) outcome { return outcome{Code: code, Error: reason} }

// OK reports a success.
func (o outcome) OK() bool { return o.Code < 300 }

func (o outcome) body() map[string]string {
	if o.OK() {
		body := map[string]string{"status": o.Status}
		if o.LastKnown != "" {
			body["lastKnown"] = o.LastKnown
		}
		if o.State != "" { // a hold's or release's outcome
			body["state"] = o.State
		}
		return body
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

// Write answers o as JSON (a 204 with no body).
func writeOutcome(w http.ResponseWriter, o outcome) {
	if o.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(o.RetryAfter.Seconds())))
	}
	if o.Code == http.StatusNoContent {
		w.WriteHeader(o.Code)
		return
	}
	writeJSON(w, o.Code, o.body())
}

// JSON answers v with code, never cached.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// The status line is already out; a failed write means the client left.
	_ = json.NewEncoder(w).Encode(v)
}

// Error answers {error: msg} with code; msg is for the caller.
func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// temporalFailure turns an error from the runs (runclient's, or a fake's
// wrapping them) into the answer for the caller and logs what the caller is
// not told.
func temporalFailure(logger *slog.Logger, err error, what string) outcome {
	switch {
	case errors.Is(err, runclient.ErrRunNotFound):
		return refused(http.StatusNotFound, "unknown run")
	case errors.Is(err, runclient.ErrIdempotencyConflict):
		logger.Info("refused: idempotency key reused for another request", "during", what)
		return refused(http.StatusUnprocessableEntity, runclient.ErrIdempotencyConflict.Error())
	case errors.Is(err, runclient.ErrBadPageToken):
		return refused(http.StatusBadRequest, runclient.ErrBadPageToken.Error())
	case errors.Is(err, runclient.ErrSearchAttributesMissing):
		// The error names the attributes and the command that adds them:
		// the operator's fix, for the log, not the caller.
		logger.Error("the namespace lacks agentrun's search attributes", "during", what, "err", err)
		return refused(http.StatusServiceUnavailable, "the Temporal namespace is not set up for agentrun; the approval server's log names the fix")
	case errors.Is(err, runclient.ErrUnavailable):
		logger.Warn("temporal unavailable", "during", what, "err", err)
		return refused(http.StatusServiceUnavailable, "temporal is unreachable; try again later")
	default:
		logger.Error("temporal call failed", "during", what, "err", err)
		return refused(http.StatusInternalServerError, "internal error")
	}
}

// hasMediaType reports whether r's Content-Type is want, whatever its
// parameters.
func hasMediaType(r *http.Request, want string) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == want
}

// readBody reads r's body up to limit bytes: 413 past it.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, outcome) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			return nil, refused(http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d KiB", limit>>10))
		}
		return nil, refused(http.StatusBadRequest, "could not read the body")
	}
	return body, accepted("")
}

// wantsJSON: the caller asked for JSON, not a page.
func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}
