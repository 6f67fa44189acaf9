package httptool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
	"github.com/agentrun/agentrun/tools/toolhttp"
)

// idempotencyKeyField is the Idempotency-Key header as it is sent.
const idempotencyKeyField = "idempotency-key"

// maxKeyBytes is the longest Idempotency-Key sent; Stripe takes up to 255.
const maxKeyBytes = 255

// verdict is what a status proves about the request.
type verdict int

const (
	// done: 2xx, or a 303 See Other to a request that is not a GET (RFC
	// 9110 15.4.4: the server did it, and Location names its result).
	done verdict = iota
	// redirected: a 3xx to a GET, not followed. A GET changes nothing, so
	// nothing happened.
	redirected
	// redirectedUnknown: any other 3xx to a request that may change
	// something: not followed, and it does not say whether the server acted
	// before it answered.
	redirectedUnknown
	// refused: a 4xx that proves the server did not act on this request.
	refused
	// rateLimited: 429, try again after Retry-After.
	rateLimited
	// unknown: 5xx, and the 4xx that prove nothing (toolhttp.Refused: 408,
	// 425, and 409, a request with this key still in flight): the outcome
	// is unknown, and asking again later may tell.
	unknown
)

func classify(method string, status int) verdict {
	switch {
	case status >= 200 && status < 300:
		return done
	case status == http.StatusSeeOther && method != http.MethodGet:
		return done
	case status >= 300 && status < 400 && method == http.MethodGet:
		return redirected
	case status >= 300 && status < 400:
		return redirectedUnknown
	case status == http.StatusTooManyRequests:
		return rateLimited
	case toolhttp.Refused(status):
		return refused
	default:
		return unknown
	}
}

// answer is the server's answer, its body read up to the tool's bound.
type answer struct {
	status int
	header http.Header
	// body holds a little more than maxResponse bytes, so that a secret the
	// bound cuts through is still whole when it is scrubbed.
	body []byte
}

// Execute sends the request under the call's operationKey.
func (t *tool) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	r, err := t.prepare(call)
	if err != nil {
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf("%s: refused before sending: %v", t.name, err), nil)
	}
	a, err := t.send(ctx, r, call.OperationKey)
	if err != nil {
		return api.ToolOutput{}, err
	}
	switch classify(r.method, a.status) {
	case done:
		return t.output(r, a)
	case redirected:
		return api.ToolOutput{}, tools.Rejected(fmt.Sprintf(
			"%s: the server answered %d, a redirect; redirects are not followed, so that the request cannot be sent elsewhere, and it is not sent again",
			t.name, a.status), nil)
	case redirectedUnknown:
		return api.ToolOutput{}, fmt.Errorf(
			"%s: the server answered %d, a redirect, which is not followed; it does not say whether the request was done, so the outcome is unknown",
			t.name, a.status)
	case refused:
		return api.ToolOutput{}, tools.Rejected(t.describe(a, "the server refused the request"), nil)
	case rateLimited:
		return api.ToolOutput{}, t.rateLimited(a)
	default:
		return api.ToolOutput{}, errors.New(t.describe(a, "the outcome is unknown"))
	}
}

// Reconcile repeats the request under the same operationKey: a server that
// honours Idempotency-Key answers the original result and does not act again
// (see the package comment for when that holds). It never answers
// not_created: a refused repeat does not prove that the first request was
// refused too (the server may refuse before it looks the key up, or have
// forgotten the key), and a repeat that is not refused needs no retry.
func (t *tool) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	r, err := t.prepare(call)
	if err != nil {
		// Never repeat a request other than the one that may have run.
		return cannotTell(fmt.Sprintf("%s: will not repeat the request: %v", t.name, err)), nil
	}
	a, err := t.send(ctx, r, call.OperationKey)
	if err != nil {
		return api.ToolReconciliation{}, err
	}
	switch classify(r.method, a.status) {
	case done:
		out, err := t.output(r, a)
		if err != nil {
			return api.ToolReconciliation{}, err
		}
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: out}, nil
	case redirected, redirectedUnknown, refused:
		return cannotTell(t.describe(a, "the server refused the repeated request, which does not say whether the first one happened")), nil
	case rateLimited:
		return api.ToolReconciliation{}, t.rateLimited(a)
	default:
		return api.ToolReconciliation{}, errors.New(t.describe(a, "the outcome is still unknown"))
	}
}

// rateLimited is a 429's error: for an action the outcome stays unknown, and
// the run waits as long as the server asked before it reconciles.
func (t *tool) rateLimited(a answer) error {
	wait := toolhttp.RetryAfter(a.header, time.Now())
	return tools.RateLimited(t.describe(a, fmt.Sprintf("rate limited, retry after %s", wait)), wait, nil)
}

func cannotTell(reason string) api.ToolReconciliation {
	return api.ToolReconciliation{Outcome: api.ReconcileCannotTell, Reason: reason}
}

// prepare is the request a call may send: its plan, under a usable key, and
// the one the person approved when one was asked.
func (t *tool) prepare(call tools.Call) (request, error) {
	if err := checkKey(call.OperationKey); err != nil {
		return request{}, err
	}
	r, err := t.plan(call)
	if err != nil {
		return request{}, err
	}
	if call.Approved != "" && call.Approved != r.preview() {
		return request{}, errors.New("the request is not the one approved")
	}
	return r, nil
}

func checkKey(key string) error {
	if key == "" {
		return errors.New("no operationKey to send as the Idempotency-Key")
	}
	if len(key) > maxKeyBytes {
		return fmt.Errorf("the operationKey is %d bytes, more than the %d an Idempotency-Key takes", len(key), maxKeyBytes)
	}
	for _, c := range []byte(key) {
		if c <= ' ' || c >= 0x7f {
			return errors.New("the operationKey is not printable ASCII")
		}
	}
	return nil
}

// send makes one exchange. An error means no answer came: the outcome is
// unknown.
func (t *tool) send(ctx context.Context, r request, key string) (answer, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, r.url.String(), body)
	if err != nil {
		return answer{}, fmt.Errorf("%s: build the request: %w", t.name, err)
	}
	req.Header = t.header.Clone()
	// Set under a key that is not canonical, so that Go's transport does not
	// take the request for a replayable one: it would send it again on its
	// own when a reused connection closes before an answer, which does not
	// prove the server never got it. The run reconciles instead. The name
	// is case-insensitive on the wire.
	req.Header[idempotencyKeyField] = []string{key}
	if r.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %s %s: no answer, the outcome is unknown: %w", t.name, r.method, r.url.Redacted(), err)
	}
	defer resp.Body.Close()
	limit := int64(t.maxResponse + t.longestSecret() + 1)
	read, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return answer{}, fmt.Errorf("%s: %s %s: the answer (%d) broke off, the outcome is unknown: %w",
			t.name, r.method, r.url.Redacted(), resp.StatusCode, err)
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: read}, nil
}
