// Package faults is what the sandbox does to requests besides answering
// them: the queue of injected faults (lost answers, delays, error statuses
// and rate limits shaped exactly like GitHub's) and the request log.
package ghsandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Fault modes.
const (
	// ModeDropResponse performs the action, then closes the connection
	// without answering: the client cannot tell whether it happened.
	// Go's http.Transport silently resends a GET that fails this way on a
	// reused connection, so against a Go client a GET fault needs count 2 to
	// be seen; a POST is never resent.
	ModeDropResponse = "drop_response"
	// ModeDelay performs the action, then holds the answer for DelayMs.
	ModeDelay = "delay"
	// ModeStatus answers Status without performing the action.
	ModeStatus = "status"
	// ModeLandLate holds the request for DelayMs before performing the
	// action, and performs it even when the client has gone meanwhile, as
	// GitHub finishes a request it received: the action lands after its
	// worker died or gave up. The answer goes to a client still waiting.
	ModeLandLate = "land_late"
)

// defaultPrimaryResetSeconds is how far away the reset of a primary rate
// limit fault is when the fault does not say.
const defaultPrimaryResetSeconds = 60

// Fault makes the next Count requests for Op misbehave.
type Fault struct {
	Op      string `json:"op"`
	Mode    string `json:"mode"`
	DelayMs int    `json:"delayMs,omitempty"`
	Status  int    `json:"status,omitempty"`
	// RetryAfter turns a 403 or 429 into a secondary rate limit with this
	// Retry-After, or with Primary sets the primary limit's reset this many
	// seconds ahead.
	RetryAfter int  `json:"retryAfter,omitempty"`
	Primary    bool `json:"primary,omitempty"`
	// Count is how many matching requests the fault applies to; 0 means 1.
	// In the fault list it is how many remain.
	Count int `json:"count,omitempty"`
	// After lets this many matching requests through untouched first, e.g.
	// to fail a reconcile lookup but not the list that precedes a create.
	After int `json:"after,omitempty"`
}

// normalized validates f against the ops a sandbox serves and fills in its defaults.
func (f Fault) normalized(ops map[string]bool) (Fault, error) {
	if !ops[f.Op] {
		return Fault{}, fmt.Errorf("op %q is not one of %s", f.Op, strings.Join(slices.Sorted(maps.Keys(ops)), ", "))
	}
	if f.Count < 0 || f.DelayMs < 0 || f.RetryAfter < 0 || f.After < 0 {
		return Fault{}, errors.New("count, after, delayMs and retryAfter must not be negative")
	}
	if f.Count == 0 {
		f.Count = 1
	}
	switch f.Mode {
	case ModeDropResponse:
		return f, f.rejectFields(f.DelayMs != 0, f.Status != 0, f.RetryAfter != 0, f.Primary)
	case ModeDelay, ModeLandLate:
		if f.DelayMs == 0 {
			return Fault{}, fmt.Errorf("mode %s needs delayMs > 0", f.Mode)
		}
		return f, f.rejectFields(false, f.Status != 0, f.RetryAfter != 0, f.Primary)
	case ModeStatus:
		return f.normalizedStatus()
	default:
		return Fault{}, fmt.Errorf("mode %q is not one of drop_response, delay, land_late, status", f.Mode)
	}
}

// rejectFields refuses fields the mode ignores, so that a typo in a test
// does not silently inject a different fault.
func (f Fault) rejectFields(delay, status, retryAfter, primary bool) error {
	switch {
	case delay:
		return fmt.Errorf("delayMs only applies to modes delay and land_late, not %s", f.Mode)
	case status || retryAfter || primary:
		return fmt.Errorf("status, retryAfter and primary only apply to mode status, not %s", f.Mode)
	}
	return nil
}

func (f Fault) normalizedStatus() (Fault, error) {
	if f.DelayMs != 0 {
		return Fault{}, f.rejectFields(true, false, false, false)
	}
	if f.Primary {
		if f.Status == 0 {
			f.Status = http.StatusForbidden
		}
		if f.Status != http.StatusForbidden && f.Status != http.StatusTooManyRequests {
			return Fault{}, fmt.Errorf("a primary rate limit answers 403 or 429, not %d", f.Status)
		}
		if f.RetryAfter == 0 {
			f.RetryAfter = defaultPrimaryResetSeconds
		}
		return f, nil
	}
	if f.Status < 400 || f.Status > 599 {
		return Fault{}, fmt.Errorf("mode status needs a status between 400 and 599, got %d", f.Status)
	}
	if f.RetryAfter != 0 && f.Status != http.StatusForbidden && f.Status != http.StatusTooManyRequests {
		return Fault{}, fmt.Errorf("retryAfter makes a rate limit, which answers 403 or 429, not %d", f.Status)
	}
	return f, nil
}

// StatusResponse is the answer of a status fault, shaped so that
// go-github v62's CheckResponse classifies it as GitHub's would be.
func StatusResponse(f Fault, now time.Time) Response {
	switch {
	case f.Primary:
		return PrimaryRateLimit(f.Status, now.Add(time.Duration(f.RetryAfter)*time.Second))
	case f.Status == http.StatusTooManyRequests || (f.Status == http.StatusForbidden && f.RetryAfter > 0):
		return SecondaryRateLimit(f.Status, f.RetryAfter)
	case f.Status == http.StatusUnprocessableEntity:
		return ValidationFailed(DocsREST, ValidationError{
			Resource: "Issue", Field: "body", Code: "custom", Message: "rejected by a sandbox fault",
		})
	default:
		return Error(f.Status, StatusMessage(f.Status), DocsREST)
	}
}

// Drop closes the connection without a response. Where the
// connection cannot be taken over (HTTP/2), aborting the handler resets the
// stream, which the client sees the same way.
func Drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close() // the point is that the client gets nothing
}

// Hold waits d, or less if the client goes away; it reports whether
// the response should still be written.
func Hold(r *http.Request, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

// landLate performs r with handle after d, whether or not its client is
// still there: the body is read at once, as GitHub receives it, and the
// action no longer depends on the connection.
func landLate(r *http.Request, d time.Duration, handle func(*http.Request) Response) Response {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return Error(http.StatusBadRequest, "could not read the request body", DocsREST)
	}
	time.Sleep(d)
	landed := r.Clone(context.WithoutCancel(r.Context()))
	landed.Body = io.NopCloser(bytes.NewReader(body))
	return handle(landed)
}
