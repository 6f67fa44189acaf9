package tools

import (
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// Rejected is an Execute error that proves nothing happened (the other side
// refused the request, as a 4xx that proves it does); the step fails, and it
// is not retried or reconciled.
func Rejected(msg string, cause error) error {
	return temporal.NewNonRetryableApplicationError(msg, api.ErrTypeToolRejected, cause)
}

// RateLimited is an Execute error that says when to try again. For an
// action the outcome is still unknown: the run reconciles before it retries.
func RateLimited(msg string, retryAfter time.Duration, cause error) error {
	return temporal.NewApplicationErrorWithCause(msg, api.ErrTypeRateLimited, cause,
		api.RateLimitDetails{RetryAfterSeconds: int64(retryAfter.Seconds())})
}
