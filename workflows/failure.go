// This file reads what an activity's error says about the outside
// world, for the run to decide on: nothing happened (rejected), try again
// after a wait (rate limited), or the outcome is unknown.

package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// errorMessage is the innermost useful message of an activity error. An
// application error's message already holds its causes' text (Temporal
// takes it from the tool's wrapped error and carries the chain as causes
// too), so it is said once, not once per cause.
func errorMessage(err error) string {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) {
		return cmp.Or(appErr.Message(), appErr.Error())
	}
	var toErr *temporal.TimeoutError
	if errors.As(err, &toErr) {
		return "timed out (" + toErr.TimeoutType().String() + ")"
	}
	return err.Error()
}

// rejection is the message of an error that proves nothing happened (a
// GitHub 4xx that says so, or a tool's tools.Rejected), and whether it is one.
func rejection(err error) (string, bool) {
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && (appErr.Type() == api.ErrTypeGitHubRejected || appErr.Type() == api.ErrTypeToolRejected) {
		return appErr.Message(), true
	}
	return "", false
}

// rateLimited is how long a rate-limit error says to wait (at least a
// second), its message, and whether it is one.
func rateLimited(err error) (time.Duration, string, bool) {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != api.ErrTypeRateLimited {
		return 0, "", false
	}
	var d api.RateLimitDetails
	_ = appErr.Details(&d)
	return time.Duration(max(d.RetryAfterSeconds, 1)) * time.Second, appErr.Message(), true
}

// inputUnreadable ends a run that could not read a required input.
type inputUnreadable struct {
	Tool, Msg string
}

func (e *inputUnreadable) Error() string {
	return fmt.Sprintf("could not read the input (%s): %s", e.Tool, e.Msg)
}
