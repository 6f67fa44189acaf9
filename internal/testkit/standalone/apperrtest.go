// This file holds the test assertions on how Temporal will treat an
// activity's error: an ApplicationError of one of api's types (with its
// retry delay and details), or a plain error it retries with its own
// backoff. The github classification and the activities over it assert the
// same contract, so they share these.

package standalone

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// ApplicationError fails t unless err wraps a Temporal ApplicationError, and
// returns it.
func ApplicationError(t testing.TB, err error) *temporal.ApplicationError {
	t.Helper()
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an ApplicationError, got %T: %v", err, err)
	return appErr
}

// RequireRateLimited checks that err is a retryable rate limit of kind whose
// next retry waits exactly what its details say, and returns the details.
func RequireRateLimited(t testing.TB, err error, kind string) api.RateLimitDetails {
	t.Helper()
	appErr := ApplicationError(t, err)
	require.Equal(t, api.ErrTypeRateLimited, appErr.Type())
	require.False(t, appErr.NonRetryable())
	var details api.RateLimitDetails
	require.NoError(t, appErr.Details(&details))
	require.Equal(t, kind, details.Kind)
	require.Equal(t, time.Duration(details.RetryAfterSeconds)*time.Second, appErr.NextRetryDelay())
	return details
}

// RequirePlainRetryable checks that err is an error Temporal retries with its
// own backoff: not an ApplicationError at all.
func RequirePlainRetryable(t testing.TB, err error) {
	t.Helper()
	require.Error(t, err)
	var appErr *temporal.ApplicationError
	require.False(t, errors.As(err, &appErr), "want a plain error Temporal retries, got %v", err)
}
