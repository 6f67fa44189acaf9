package github_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"

	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// answering is a GitHub that answers every request with status, headers and
// body, so that each test chooses the exact answer GitHub gives: the ones the
// sandbox makes and the ones it does not (a rate limit the body does not
// name, a validation error without a field, a 5xx with Retry-After).
func answering(t *testing.T, status int, headers map[string]string, body string) *gogithub.Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "test-token")
	require.NoError(t, err)
	return gh
}

// classifiedGet is what the tools do with a failed read: a real go-github
// call, its error classified under the operation's name.
func classifiedGet(t *testing.T, gh *gogithub.Client) error {
	t.Helper()
	_, _, err := gh.PullRequests.Get(context.Background(), "acme", "widgets", 1)
	require.Error(t, err)
	return github.ClassifyError("get pull request acme/widgets#1", err)
}

func requireRejected(t *testing.T, err error, message string) {
	t.Helper()
	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t, message, appErr.Message())
}

func resetIn(d time.Duration) string { return strconv.FormatInt(time.Now().Add(d).Unix(), 10) }

// quotaSpent is the headers of an answer with no requests left, and the
// reset time when GitHub sends one.
func quotaSpent(reset string) map[string]string {
	h := map[string]string{"X-RateLimit-Remaining": "0"}
	if reset != "" {
		h["X-RateLimit-Reset"] = reset
	}
	return h
}

// Each answer GitHub gives a caller it throttles, and how long the retry
// waits for it. The reset header has one-second resolution, so a wait until
// a reset is checked to within a second.
func TestRateLimitAnswersWaitWhatGitHubSays(t *testing.T) {
	const (
		spent     = `{"message":"API rate limit exceeded"}`
		secondary = `{"message":"You have exceeded a secondary rate limit","documentation_url":"https://docs.github.com/rest#secondary-rate-limits"}`
	)
	for _, tc := range []struct {
		name    string
		status  int
		headers map[string]string
		body    string
		kind    string
		wait    int64
		within  float64
	}{
		{name: "PrimaryRateLimitWaitsUntilTheReset", status: http.StatusForbidden,
			headers: quotaSpent(resetIn(30 * time.Second)),
			body:    spent, kind: "primary", wait: 30, within: 1},
		{name: "PrimaryRateLimitWithoutAResetWaitsAMinute", status: http.StatusForbidden,
			headers: quotaSpent(""), body: spent, kind: "primary", wait: 60},
		// A reset already past (or a clock ahead of GitHub's) must not become a
		// retry with no wait at all, which would spin against the limit.
		{name: "RateLimitWhoseResetHasPassedStillWaitsOneSecond", status: http.StatusForbidden,
			headers: quotaSpent(resetIn(-time.Minute)),
			body:    spent, kind: "primary", wait: 1},
		{name: "SecondaryRateLimitWithoutRetryAfterWaitsAMinute", status: http.StatusForbidden,
			body: secondary, kind: "secondary", wait: 60},
		// A 403 carrying Retry-After is a rate limit even when its body names no
		// limit; taken for a rejection it would end the run as if GitHub had
		// refused the comment for good.
		{name: "ForbiddenWithRetryAfterButNoNamedLimitIsASecondaryRateLimit", status: http.StatusForbidden,
			headers: map[string]string{"Retry-After": "9"},
			body:    `{"message":"You have triggered an abuse detection mechanism."}`, kind: "secondary", wait: 9},
		{name: "TooManyRequestsWithRetryAfterIsASecondaryRateLimit", status: http.StatusTooManyRequests,
			headers: map[string]string{"Retry-After": "3"}, body: `{"message":"slow down"}`, kind: "secondary", wait: 3},
		{name: "TooManyRequestsWithTheQuotaSpentWaitsUntilTheReset", status: http.StatusTooManyRequests,
			headers: quotaSpent(resetIn(20 * time.Second)),
			body:    spent, kind: "primary", wait: 20, within: 1},
		{name: "TooManyRequestsWithTheQuotaSpentButNoResetWaitsAMinute", status: http.StatusTooManyRequests,
			headers: quotaSpent(""), body: spent, kind: "primary", wait: 60},
		{name: "TooManyRequestsWithoutAnyHintWaitsAMinute", status: http.StatusTooManyRequests,
			headers: map[string]string{"X-RateLimit-Remaining": "12"}, body: `{"message":"slow down"}`, kind: "secondary", wait: 60},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gh := answering(t, tc.status, tc.headers, tc.body)

			details := standalone.RequireRateLimited(t, classifiedGet(t, gh), tc.kind)

			if tc.within == 0 {
				require.Equal(t, tc.wait, details.RetryAfterSeconds)
			} else {
				require.InDelta(t, tc.wait, details.RetryAfterSeconds, tc.within)
			}
		})
	}
}

func TestSecondaryRateLimitWaitsForRetryAfter(t *testing.T) {
	gh := answering(t, http.StatusForbidden, map[string]string{"Retry-After": "7"},
		`{"message":"You have exceeded a secondary rate limit","documentation_url":"https://docs.github.com/rest#secondary-rate-limits"}`)

	err := classifiedGet(t, gh)

	details := standalone.RequireRateLimited(t, err, "secondary")
	require.Equal(t, int64(7), details.RetryAfterSeconds)
	require.Equal(t, "get pull request acme/widgets#1: secondary rate limit, retry in 7s: "+
		errors.Unwrap(err).Error(), standalone.ApplicationError(t, err).Message())
	var abuse *gogithub.AbuseRateLimitError
	require.True(t, errors.As(err, &abuse), "the cause stays go-github's error")
}

func TestForbiddenWithAnUnreadableRetryAfterIsARejection(t *testing.T) {
	gh := answering(t, http.StatusForbidden, map[string]string{"Retry-After": "soon"},
		`{"message":"Resource not accessible by integration"}`)

	requireRejected(t, classifiedGet(t, gh), "get pull request acme/widgets#1: 403 Resource not accessible by integration")
}

// The answers that prove GitHub did nothing are never retried: a retry
// could only get the same answer, and the run learns why at once.
func TestAnswersThatProveNothingHappenedAreRejections(t *testing.T) {
	for status, message := range map[int]string{
		http.StatusUnauthorized:        "Bad credentials",
		http.StatusForbidden:           "Resource not accessible by integration",
		http.StatusNotFound:            "Not Found",
		http.StatusUnprocessableEntity: "Validation Failed",
	} {
		gh := answering(t, status, nil, `{"message":"`+message+`"}`)

		requireRejected(t, classifiedGet(t, gh),
			"get pull request acme/widgets#1: "+strconv.Itoa(status)+" "+message)
	}
}

func TestTwoFactorChallengeIsARejection(t *testing.T) {
	gh := answering(t, http.StatusUnauthorized, map[string]string{"X-GitHub-OTP": "required; app"},
		`{"message":"Must specify two-factor authentication OTP code."}`)

	requireRejected(t, classifiedGet(t, gh),
		"get pull request acme/widgets#1: 401 Must specify two-factor authentication OTP code.")
}

// Only the statuses above prove nothing happened; any other failure may
// pass, so Temporal retries it.
func TestOtherFailuresArePlainRetryableErrorsThatKeepTheirCause(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusConflict, http.StatusInternalServerError, http.StatusBadGateway} {
		gh := answering(t, status, nil, `{"message":"something went wrong"}`)

		err := classifiedGet(t, gh)

		standalone.RequirePlainRetryable(t, err)
		require.Regexp(t, `^get pull request acme/widgets#1: GET http://127\.0\.0\.1:\d+/repos/acme/widgets/pulls/1: `+
			strconv.Itoa(status)+` something went wrong \[\]$`, err.Error())
		var resp *gogithub.ErrorResponse
		require.True(t, errors.As(err, &resp), "wrapped with %%w")
		require.Equal(t, status, resp.Response.StatusCode)
	}
}

// A 503 with Retry-After is GitHub being unwell, not a rate limit: Temporal's
// own retry policy applies, and nothing is told to the workflow as a limit.
func TestServiceUnavailableWithRetryAfterIsAPlainRetryableError(t *testing.T) {
	gh := answering(t, http.StatusServiceUnavailable, map[string]string{"Retry-After": "30"}, `{"message":"Service Unavailable"}`)

	standalone.RequirePlainRetryable(t, classifiedGet(t, gh))
}

func TestUnreachableGitHubIsAPlainRetryableError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	srv.Close()

	err = classifiedGet(t, gh)

	standalone.RequirePlainRetryable(t, err)
	require.Contains(t, err.Error(), "get pull request acme/widgets#1: ")
}

func TestValidationErrorsKeepGitHubsWords(t *testing.T) {
	for body, want := range map[string]string{
		`{"message":"Validation Failed","errors":[{"resource":"IssueComment","field":"body","code":"custom","message":"body is too long (maximum is 65536 characters)"}]}`: "422 Validation Failed [IssueComment.body: body is too long (maximum is 65536 characters)]",
		`{"message":"Validation Failed","errors":[{"resource":"IssueComment","field":"body","code":"missing_field"}]}`:                                                     "422 Validation Failed [IssueComment.body: missing_field]",
		`{"message":"Validation Failed","errors":[{"code":"custom","message":"Issue is locked"},"a plain string error"]}`:                                                  "422 Validation Failed [Issue is locked; a plain string error]",
		`{"message":"Validation Failed","errors":[{"resource":"Issue","code":"locked"}]}`:                                                                                  "422 Validation Failed [Issue.: locked]",
		`{"message":"Validation Failed","errors":[{"field":"body","code":"invalid"}]}`:                                                                                     "422 Validation Failed [.body: invalid]",
	} {
		gh := answering(t, http.StatusUnprocessableEntity, nil, body)

		requireRejected(t, classifiedGet(t, gh), "get pull request acme/widgets#1: "+want)
	}
}
