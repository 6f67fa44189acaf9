package activities_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
)

// gitHubAnswering is a GitHub that answers every request with status,
// headers and body: the answers the sandbox does not make (a rate limit
// GitHub does not name in its body, a validation error without a field, a
// 5xx with Retry-After) but GitHub does. It counts the comment posts.
func gitHubAnswering(t *testing.T, status int, headers map[string]string, body string) (*activities.Activities, *atomic.Int32) {
	t.Helper()
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		}
		for k, v := range headers {
			w.Header().Set(k, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	gh, err := activities.NewGitHubClient(srv.URL, "test-token")
	require.NoError(t, err)
	return &activities.Activities{GitHub: gh, BotLogin: "agentrun[bot]"}, &posts
}

// A 403 carrying Retry-After is a rate limit even when its body names no
// limit; taken for a rejection it would end the run as if GitHub had refused
// the comment for good.
func TestForbiddenWithRetryAfterButNoNamedLimitIsASecondaryRateLimit(t *testing.T) {
	acts, _ := gitHubAnswering(t, http.StatusForbidden, map[string]string{"Retry-After": "9"},
		`{"message":"You have triggered an abuse detection mechanism."}`)

	_, err := acts.GetPullRequest(context.Background(), demoPR)

	details := requireRateLimited(t, err, "secondary")
	require.Equal(t, int64(9), details.RetryAfterSeconds)
}

// A 503 with Retry-After is GitHub being unwell, not a rate limit: Temporal's
// own retry policy applies, and nothing is told to the workflow as a limit.
func TestServiceUnavailableWithRetryAfterIsAPlainRetryableError(t *testing.T) {
	acts, _ := gitHubAnswering(t, http.StatusServiceUnavailable, map[string]string{"Retry-After": "30"},
		`{"message":"Service Unavailable"}`)

	_, err := acts.CreateIssueComment(context.Background(),
		activities.CreateCommentInput{Target: demoPR, Body: "Review", OperationKey: "run-1:1"})

	requirePlainRetryableError(t, err)
	require.Contains(t, err.Error(), "look for its marker")
}

func TestTooManyRequestsWithTheQuotaSpentButNoResetWaitsAMinute(t *testing.T) {
	acts, _ := gitHubAnswering(t, http.StatusTooManyRequests, map[string]string{"X-RateLimit-Remaining": "0"},
		`{"message":"API rate limit exceeded"}`)

	_, err := acts.GetPullRequest(context.Background(), demoPR)

	details := requireRateLimited(t, err, "primary")
	require.Equal(t, int64(60), details.RetryAfterSeconds)
}

func TestValidationErrorWithoutResourceOrFieldKeepsGitHubsWordsAlone(t *testing.T) {
	acts, posts := gitHubAnswering(t, http.StatusUnprocessableEntity, nil,
		`{"message":"Validation Failed","errors":[{"code":"custom","message":"Issue is locked"},"a plain string error"]}`)

	found, err := acts.FindCommentByOperationKey(context.Background(),
		activities.FindCommentInput{Target: demoPR, OperationKey: "run-1:1", Body: "Review"})
	require.NoError(t, err)
	require.Equal(t, activities.ReconcileCannotTell, found.Outcome)
	require.Contains(t, found.Reason, "422 Validation Failed [Issue is locked; a plain string error]")
	_, err = acts.CreateIssueComment(context.Background(),
		activities.CreateCommentInput{Target: demoPR, Body: "Review", OperationKey: "run-1:1"})

	appErr := applicationError(t, err)
	require.Equal(t, activities.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t,
		"create comment on acme/widgets#1: look for its marker: 422 Validation Failed [Issue is locked; a plain string error]",
		appErr.Message())
	require.Zero(t, posts.Load(), "a listing that failed posts nothing")
}

func TestValidationErrorNamingOnlyTheResourceShowsIt(t *testing.T) {
	acts, _ := gitHubAnswering(t, http.StatusUnprocessableEntity, nil,
		`{"message":"Validation Failed","errors":[{"resource":"Issue","code":"locked"}]}`)

	_, err := acts.GetPullRequest(context.Background(), demoPR)

	appErr := applicationError(t, err)
	require.Equal(t, "get pull request acme/widgets#1: 422 Validation Failed [Issue.: locked]", appErr.Message())
}
