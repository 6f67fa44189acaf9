package openai

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/reviewtools"
)

// nextModelError makes one Next call against a provider giving r and returns
// the application error the activity would report.
func nextModelError(t *testing.T, r reply) (*temporal.ApplicationError, *fakeOpenAI) {
	t.Helper()
	fake := newFakeOpenAI(t, r)
	_, err := fake.model().Next(context.Background(), reviewConversation(), reviewtools.Tools())
	require.Error(t, err)
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "want an application error, got %T: %v", err, err)
	fake.onlyRequest()
	return appErr, fake
}

func TestOpenAIRateLimitIsRetriedAfterTheProvidersRetryAfter(t *testing.T) {
	appErr, _ := nextModelError(t, reply{status: http.StatusTooManyRequests,
		header: map[string]string{"Retry-After": "7"}, fixture: "error_429_rate_limit.json"})

	require.Equal(t, ErrTypeModelRateLimited, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Equal(t, 7*time.Second, appErr.NextRetryDelay())
	require.Contains(t, appErr.Error(), "429 Too Many Requests: Rate limit reached for gpt-4.1-mini")
	require.Contains(t, appErr.Error(), "code rate_limit_exceeded")

	// What the server sees is what decides the retry: the type and the delay
	// must be on the failure itself.
	failure := temporal.GetDefaultFailureConverter().ErrorToFailure(appErr)
	info := failure.GetApplicationFailureInfo()
	require.Equal(t, ErrTypeModelRateLimited, info.GetType())
	require.False(t, info.GetNonRetryable())
	require.Equal(t, 7*time.Second, info.GetNextRetryDelay().AsDuration())
}

func TestOpenAIRateLimitPrefersTheMillisecondRetryAfter(t *testing.T) {
	appErr, _ := nextModelError(t, reply{status: http.StatusTooManyRequests,
		header:  map[string]string{"Retry-After": "1", "Retry-After-Ms": "339"},
		fixture: "error_429_rate_limit.json"})

	require.Equal(t, 339*time.Millisecond, appErr.NextRetryDelay())
}

func TestOpenAIServerErrorIsRetried(t *testing.T) {
	appErr, _ := nextModelError(t, reply{status: http.StatusInternalServerError, fixture: "error_500_server_error.json"})

	require.Equal(t, ErrTypeModelUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Zero(t, appErr.NextRetryDelay(), "no Retry-After: the retry policy's backoff applies")
	require.Contains(t, appErr.Error(), "500 Internal Server Error: The server had an error while processing your request.")
}

func TestOpenAIUnavailableBehindAProxyIsRetriedAfterItsRetryAfter(t *testing.T) {
	appErr, _ := nextModelError(t, reply{status: http.StatusServiceUnavailable,
		header: map[string]string{"Retry-After": "30", "Content-Type": "text/html"},
		body:   "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>"})

	require.Equal(t, ErrTypeModelUnavailable, appErr.Type())
	require.False(t, appErr.NonRetryable())
	require.Equal(t, 30*time.Second, appErr.NextRetryDelay())
	require.Contains(t, appErr.Error(), "503 Service Unavailable: <html><body><h1>503 Service Temporarily Unavailable")
}

func TestOpenAIUnauthorizedIsRejectedWithTheProvidersMessageAndNoKey(t *testing.T) {
	appErr, _ := nextModelError(t, reply{status: http.StatusUnauthorized, fixture: "error_401_invalid_api_key.json"})

	require.Equal(t, api.ErrTypeModelRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), "401 Unauthorized: Incorrect API key provided: sk-[redacted]. You can find your API key at")
	require.Contains(t, appErr.Error(), "code invalid_api_key")
	require.NotContains(t, appErr.Error(), testOpenAIKey)
	require.NotContains(t, appErr.Error(), "****", "not even the masked key")
}

func TestOpenAIProviderEchoingTheKeyNeverPutsItInTheError(t *testing.T) {
	for name, key := range map[string]string{"OpenAI-shaped key": testOpenAIKey, "gateway key": "gw_live_7Yc2Lq9Rt4Xz"} {
		t.Run(name, func(t *testing.T) {
			fake := newFakeOpenAI(t, reply{status: http.StatusUnauthorized,
				body: `{"error":{"message":"key ` + key + ` is revoked","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`})
			cfg := fake.config()
			cfg.APIKey = key
			model, err := New(cfg)
			require.NoError(t, err)

			_, err = model.Next(context.Background(), reviewConversation(), reviewtools.Tools())

			require.ErrorContains(t, err, "is revoked")
			require.NotContains(t, err.Error(), key)
		})
	}
}

func TestOpenAIClientErrorsAreRejectedWithoutRetry(t *testing.T) {
	cases := map[string]struct {
		status  int
		fixture string
		message string
	}{
		"400 invalid schema":    {http.StatusBadRequest, "error_400_invalid_schema.json", "400 Bad Request: Invalid schema for function 'create_issue_comment'"},
		"403 region":            {http.StatusForbidden, "error_403_unsupported_region.json", "403 Forbidden: Country, region, or territory not supported"},
		"404 model":             {http.StatusNotFound, "error_404_model_not_found.json", "404 Not Found: The model `gpt-4.1-mini` does not exist"},
		"429 quota is not rate": {http.StatusTooManyRequests, "error_429_insufficient_quota.json", "429 Too Many Requests: You exceeded your current quota"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			appErr, _ := nextModelError(t, reply{status: tc.status, fixture: tc.fixture,
				header: map[string]string{"Retry-After": "5"}})

			require.Equal(t, api.ErrTypeModelRejected, appErr.Type())
			require.True(t, appErr.NonRetryable())
			require.Contains(t, appErr.Error(), tc.message)
		})
	}
}

func TestOpenAIUnreachableProviderIsARetryableFailure(t *testing.T) {
	fake := newFakeOpenAI(t)
	model := fake.model()
	fake.server.Close()

	_, err := model.Next(context.Background(), reviewConversation(), reviewtools.Tools())

	require.ErrorContains(t, err, "openai chat completion")
	var appErr *temporal.ApplicationError
	require.False(t, errors.As(err, &appErr), "a plain error, which Temporal retries")
	require.NotContains(t, err.Error(), testOpenAIKey)
}

func TestOpenAICancelledCallReportsTheCancellation(t *testing.T) {
	fake := newFakeOpenAI(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := fake.model().Next(ctx, reviewConversation(), reviewtools.Tools())

	require.ErrorIs(t, err, context.Canceled)
	require.Empty(t, fake.requests())
}

func TestOpenAIConversationWithAnUnknownRoleIsAnInvalidRequest(t *testing.T) {
	fake := newFakeOpenAI(t)

	_, err := fake.model().Next(context.Background(), []api.Message{{Role: "narrator", Content: "x"}}, reviewtools.Tools())

	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr))
	require.True(t, appErr.NonRetryable())
	require.Contains(t, appErr.Error(), `conversation message 0: unknown role "narrator"`)
	require.Empty(t, fake.requests())
}

func TestRetryAfterReadsSecondsMillisecondsAndDates(t *testing.T) {
	now := time.Date(2025, 7, 10, 9, 0, 0, 0, time.UTC)
	cases := map[string]struct {
		header map[string]string
		want   time.Duration
	}{
		"none":                 {nil, 0},
		"seconds":              {map[string]string{"Retry-After": "12"}, 12 * time.Second},
		"fractional seconds":   {map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		"milliseconds first":   {map[string]string{"Retry-After": "2", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		"HTTP date":            {map[string]string{"Retry-After": "Thu, 10 Jul 2025 09:00:45 GMT"}, 45 * time.Second},
		"date in the past":     {map[string]string{"Retry-After": "Thu, 10 Jul 2025 08:59:00 GMT"}, 0},
		"negative":             {map[string]string{"Retry-After": "-3"}, 0},
		"garbage":              {map[string]string{"Retry-After": "soon"}, 0},
		"not a number":         {map[string]string{"Retry-After": "NaN"}, 0},
		"absurd is bounded":    {map[string]string{"Retry-After": "864000"}, maxRetryAfter},
		"infinity is bounded":  {map[string]string{"Retry-After-Ms": "+Inf"}, maxRetryAfter},
		"bad ms falls through": {map[string]string{"Retry-After-Ms": "x", "Retry-After": "3"}, 3 * time.Second},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.header {
				h.Set(k, v)
			}
			require.Equal(t, tc.want, retryAfter(h, now))
		})
	}
}

func TestProviderMessageIsBoundedOnARuneBoundary(t *testing.T) {
	long := strings.Repeat("é", providerMessageLimit)

	got := providerProblem{Message: long}.describe(http.StatusBadRequest)

	require.Less(t, len(got), providerMessageLimit+64)
	require.True(t, strings.HasSuffix(got, "é…"), "cut between runes, then marked")
}

func TestScrubAPIKeyLeavesOrdinaryWordsAlone(t *testing.T) {
	got := scrubAPIKey("a task-force asked; key sk-proj-AbC123 and sk-abc***xyz were sent", "")

	require.Equal(t, "a task-force asked; key sk-[redacted] and sk-[redacted] were sent", got)
}
