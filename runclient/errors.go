package runclient

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
)

// Sentinels callers branch on with errors.Is, so that none of them needs to
// know Temporal's error types.
var (
	// ErrRunNotFound: no run has this ID (or no run holds this action ID).
	ErrRunNotFound = errors.New("run not found")
	// ErrUnavailable: Temporal could not be reached or did not answer in time.
	ErrUnavailable = errors.New("temporal is unavailable")
)

// NotFoundError says no run has RunID. Its message is the whole line a
// person at a terminal needs, so callers print it without more context.
type NotFoundError struct {
	RunID string
	// Err is Temporal's own answer.
	Err error
}

func (e *NotFoundError) Error() string        { return fmt.Sprintf("run %q not found", e.RunID) }
func (e *NotFoundError) Is(target error) bool { return target == ErrRunNotFound }
func (e *NotFoundError) Unwrap() error        { return e.Err }

// classify is the one rule for a call's error: a namespace that lacks
// agentrun's search attributes is a MissingSearchAttributesError, whatever
// the call; anything else goes by the package's classify.
func (c *Client) classify(ctx context.Context, runID, doing string, err error) error {
	if missing := c.missingSearchAttributes(ctx, err); missing != nil {
		err = missing
	}
	return classify(ctx, runID, doing, err)
}

// classify turns Temporal's answer into NotFoundError, or wraps it with what
// was being done and, for a server that is down or slow, ErrUnavailable. A
// call whose deadline passed is slow whatever the error says. So is a call
// the server cancelled while its caller did not: the server answers a query
// nobody polls for with Canceled as the caller's deadline comes near, and
// that answer can arrive a moment before the caller's own timer fires.
func classify(ctx context.Context, runID, doing string, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return &NotFoundError{RunID: runID, Err: err}
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var exhausted *serviceerror.ResourceExhausted
	var canceled *serviceerror.Canceled
	serverGaveUp := (errors.As(err, &canceled) || errors.Is(err, context.Canceled)) && !errors.Is(ctx.Err(), context.Canceled)
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &exhausted) || serverGaveUp ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = errors.Join(ErrUnavailable, err)
	}
	if runID == "" {
		return fmt.Errorf("%s: %w", doing, err)
	}
	return fmt.Errorf("%s %s: %w", doing, runID, err)
}
