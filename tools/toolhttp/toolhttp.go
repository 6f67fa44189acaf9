// Package toolhttp is what a tool over an HTTP service needs besides its
// own rules: JSON requests with the answer bounded (Client), the one rule
// of which answers prove the service did nothing (Refused), and the errors
// the run branches on (Classify for an attempt, CannotTell for a look).
// create_ticket (examples/customtool/tickets) and http_request
// (tools/httptool) use it.
package toolhttp

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// DefaultMaxAnswer bounds an answer's body when Client.MaxAnswer does not.
const DefaultMaxAnswer = 1 << 20

// Client sends JSON requests to one service.
type Client struct {
	// BaseURL is the service's root; a request's path is appended to it.
	BaseURL string
	// HTTP sends the requests; nil is http.DefaultClient. Give it a
	// timeout shorter than the tool's per-attempt timeout.
	HTTP *http.Client
	// Header is sent with every request (Authorization, say).
	Header http.Header
	// MaxAnswer bounds the body read of an answer; 0 is DefaultMaxAnswer.
	MaxAnswer int64
}

// Do sends method BaseURL+path with in as its JSON body (none when nil)
// and decodes a 2xx answer into out (discarded when nil). An answer of
// another status is a *StatusError; a redirect is followed for GET and
// HEAD only (a create's 3xx is a *StatusError, never sent again). Any other error means no whole answer
// came: whether the service acted is unknown.
func (c Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("%s %s: encode the request: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	req.Header = c.Header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.client(method).Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: no answer: %w", method, path, err)
	}
	defer resp.Body.Close()
	limit := cmp.Or(c.MaxAnswer, DefaultMaxAnswer)
	read, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fmt.Errorf("%s %s: the answer (%d) broke off: %w", method, path, resp.StatusCode, err)
	}
	if resp.StatusCode/100 != 2 {
		return &StatusError{Method: method, Path: path, Status: resp.StatusCode, Header: resp.Header, Body: excerpt(read)}
	}
	if int64(len(read)) > limit {
		return fmt.Errorf("%s %s: the answer is over %d bytes", method, path, limit)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(read, out); err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	return nil
}

// client is the HTTP client for a request of method: HTTP's, but one that
// never follows a redirect of a request that is no read. Following one
// sends the create again, a second effect on a service with no key; its
// 3xx is instead a *StatusError, an unknown outcome the run reconciles.
func (c Client) client(method string) *http.Client {
	hc := cmp.Or(c.HTTP, http.DefaultClient)
	if method == http.MethodGet || method == http.MethodHead {
		return hc
	}
	stay := *hc
	stay.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &stay
}

// excerptBytes is how much of a refusal's body its error quotes.
const excerptBytes = 200

func excerpt(body []byte) string {
	s := strings.ToValidUTF8(string(body[:min(len(body), excerptBytes)]), "")
	return strings.TrimSpace(s)
}

// StatusError is an answer whose status is not 2xx.
type StatusError struct {
	Method, Path string
	Status       int
	Header       http.Header
	// Body is the start of the answer's body, for the error.
	Body string
}

func (e *StatusError) Error() string {
	msg := fmt.Sprintf("%s %s: the service answered %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	if e.Body != "" {
		msg += ": " + e.Body
	}
	return msg
}

// Refused reports whether an answer's status proves the service did not
// act on the request: a 4xx, but for 408 (it gave up waiting, perhaps
// after acting), 409 (a request under the same key is in flight or done),
// 425 and 429 (try again later), which prove nothing.
func Refused(status int) bool {
	switch status {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooEarly, http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

// Classify is the error of an attempt whose create failed with err: a
// refusal (Refused) is tools.Rejected, so the step fails without a retry; a
// 429 is tools.RateLimited after its Retry-After; anything else is
// returned as it is, an unknown outcome the run reconciles. op names the
// operation in the message. Only the create's own answer proves the
// refusal: an attempt's look that is refused says nothing of an earlier
// attempt, so return its error unclassified.
func Classify(op string, err error) error {
	var status *StatusError
	switch {
	case !errors.As(err, &status):
		return err
	case Refused(status.Status):
		return tools.Rejected(op+": "+err.Error(), err)
	case status.Status == http.StatusTooManyRequests:
		return tools.RateLimited(op+": "+err.Error(), RetryAfter(status.Header, time.Now()), err)
	}
	return err
}

// CannotTell is what a Reconcile answers when its look failed with err:
// a service that refuses the look gives cannot_tell (never not_created,
// since it did not look), and any other error is returned, to be tried
// again until the run gives up and cannot tell either.
func CannotTell(op string, err error) (api.ToolReconciliation, error) {
	var status *StatusError
	if errors.As(err, &status) && Refused(status.Status) {
		return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: op + ": " + err.Error()}, nil
	}
	return api.ToolReconciliation{}, err
}

// Retry-After bounds: a missing hint waits DefaultRetryAfter, and an absurd
// or hostile one cannot park a run for days.
const (
	DefaultRetryAfter = 30 * time.Second
	MaxRetryAfter     = time.Hour
)

// RetryAfter reads Retry-After, in seconds or as an HTTP date, rounded up
// to whole seconds (the run's timers count seconds) and bounded.
func RetryAfter(header http.Header, now time.Time) time.Duration {
	value := header.Get("Retry-After")
	wait := DefaultRetryAfter
	if secs, err := strconv.ParseInt(value, 10, 64); err == nil {
		wait = time.Duration(min(max(secs, 0), int64(MaxRetryAfter/time.Second))) * time.Second
	} else if at, err := http.ParseTime(value); err == nil {
		wait = at.Sub(now)
	}
	return min(max((wait+time.Second-1).Truncate(time.Second), time.Second), MaxRetryAfter)
}
