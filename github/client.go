// Package github is agentrun's side of the GitHub REST API, for every process
// that talks to GitHub: the go-github client, and the classification of its
// errors into the application error types the workflow branches on (package
// api). It links no model client, so that the approval server can use it.
package github

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	gogithub "github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// githubHTTPTimeout bounds one HTTP exchange with GitHub. Calls made outside
// an activity (the approval server's permission lookups, whose request
// contexts carry no deadline of their own) have no other bound; inside one,
// the activity's start-to-close timeout (api.DefaultToolTimeout, also 30 s,
// unless the run sets a longer one) bounds the whole attempt.
const githubHTTPTimeout = 30 * time.Second

// defaultSecondaryWait is how long to back off from a secondary rate limit
// that names no wait; GitHub's guidance is "at least one minute".
const defaultSecondaryWait = time.Minute

// maxIdleConnsPerHost is how many idle connections to its one host a
// process keeps for reuse.
const maxIdleConnsPerHost = 64

// transport is the one connection pool of every GitHub client of the
// process, net/http's default with more idle connections kept per host:
// the default keeps two, and a process sends many requests to its one host
// at once (a worker's check run update, post and permission check, other
// runs' reads), so every request past the second opened a connection of
// its own, a TCP and TLS handshake before the request, and closed it after.
var transport = newTransport()

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = maxIdleConnsPerHost
	return t
}

// NewClient makes the go-github client every GitHub caller uses. An empty
// baseURL means api.github.com; otherwise it is the API root (GITHUB_API_URL),
// for example a GitHub Enterprise /api/v3/ or the sandbox.
func NewClient(baseURL, token string) (*gogithub.Client, error) {
	client := gogithub.NewClient(&http.Client{Timeout: githubHTTPTimeout, CheckRedirect: followReadsOnly, Transport: transport})
	if token != "" {
		client = client.WithAuthToken(token)
	}
	if baseURL == "" {
		return client, nil
	}
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_API_URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q must be an absolute http or https URL", baseURL)
	}
	// go-github resolves paths relative to BaseURL, which only works with a trailing slash.
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	upload := *u
	client.BaseURL = u
	client.UploadURL = &upload
	return client, nil
}

// followReadsOnly follows a redirect of a read (a renamed repository answers
// 301) but never of a write: net/http would send a POST's body again to the
// Location of a 307 or 308, a second send the run never reconciled. The
// redirect answer itself comes back instead, which ClassifyError leaves a
// plain error: an unknown outcome for a write, which looks for its proof
// before it is sent again.
func followReadsOnly(req *http.Request, via []*http.Request) error {
	if len(via) == 0 {
		return nil
	}
	if m := via[0].Method; m != http.MethodGet && m != http.MethodHead {
		return http.ErrUseLastResponse
	}
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	return nil
}

// maxRedirects is net/http's own default limit.
const maxRedirects = 10

// ClassifyError turns a go-github error into what the workflow branches
// on: api.ErrTypeRateLimited (retry after the wait GitHub asked for),
// api.ErrTypeGitHubRejected (a 4xx proving nothing happened; never retried), or
// a plain error that Temporal retries. op names the operation and its target.
func ClassifyError(op string, err error) error {
	var app *AppAuthError
	if errors.As(err, &app) {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("%s: %s", op, app.Error()), api.ErrTypeGitHubRejected, err)
	}
	if limit, ok := rateLimitOf(err); ok {
		wait := time.Duration(limit.RetryAfterSeconds) * time.Second
		return temporal.NewApplicationErrorWithOptions(
			fmt.Sprintf("%s: %s rate limit, retry in %s: %v", op, limit.Kind, wait, err),
			api.ErrTypeRateLimited,
			temporal.ApplicationErrorOptions{NextRetryDelay: wait, Cause: err, Details: []any{limit}},
		)
	}
	if status, message, ok := rejectionOf(err); ok {
		return temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("%s: %d %s", op, status, message), api.ErrTypeGitHubRejected, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

// rateLimitOf recognises a primary or secondary rate limit and how long
// GitHub asked us to wait.
func rateLimitOf(err error) (api.RateLimitDetails, bool) {
	var primary *gogithub.RateLimitError
	if errors.As(err, &primary) {
		wait := defaultSecondaryWait
		if !primary.Rate.Reset.IsZero() {
			wait = time.Until(primary.Rate.Reset.Time)
		}
		return rateLimitDetails("primary", wait), true
	}
	var secondary *gogithub.AbuseRateLimitError
	if errors.As(err, &secondary) {
		wait := defaultSecondaryWait
		if secondary.RetryAfter != nil {
			wait = *secondary.RetryAfter
		}
		return rateLimitDetails("secondary", wait), true
	}
	// go-github v62 leaves a 429, and a 403 whose body does not name the
	// secondary limit, as a plain ErrorResponse; GitHub's headers still say
	// it is a rate limit.
	var resp *gogithub.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil {
		return rateLimitFromHeaders(resp.Response)
	}
	return api.RateLimitDetails{}, false
}

func rateLimitFromHeaders(r *http.Response) (api.RateLimitDetails, bool) {
	if r.StatusCode != http.StatusForbidden && r.StatusCode != http.StatusTooManyRequests {
		return api.RateLimitDetails{}, false
	}
	if secs, err := strconv.ParseInt(r.Header.Get("Retry-After"), 10, 64); err == nil {
		return rateLimitDetails("secondary", time.Duration(secs)*time.Second), true
	}
	if r.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(r.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			return rateLimitDetails("primary", time.Until(time.Unix(reset, 0))), true
		}
		return rateLimitDetails("primary", defaultSecondaryWait), true
	}
	if r.StatusCode == http.StatusTooManyRequests {
		return rateLimitDetails("secondary", defaultSecondaryWait), true
	}
	return api.RateLimitDetails{}, false
}

// rateLimitDetails rounds the wait up to whole seconds, at least one, so that
// a reset already due (or clock skew) does not turn into a tight retry loop.
func rateLimitDetails(kind string, wait time.Duration) api.RateLimitDetails {
	secs := int64(math.Ceil(wait.Seconds()))
	return api.RateLimitDetails{RetryAfterSeconds: max(secs, 1), Kind: kind}
}

// rejectionOf recognises the answers that prove GitHub did nothing: 401, 404,
// 422, or a 403 that is not a rate limit (rate limits are checked first).
func rejectionOf(err error) (status int, message string, ok bool) {
	var twoFactor *gogithub.TwoFactorAuthError
	if errors.As(err, &twoFactor) {
		return http.StatusUnauthorized, describeGitHubError((*gogithub.ErrorResponse)(twoFactor)), true
	}
	var resp *gogithub.ErrorResponse
	if !errors.As(err, &resp) || resp.Response == nil {
		return 0, "", false
	}
	switch resp.Response.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusUnprocessableEntity:
		return resp.Response.StatusCode, describeGitHubError(resp), true
	}
	return 0, "", false
}

// describeGitHubError keeps GitHub's own words: the message and each
// validation error, e.g. "Validation Failed [IssueComment.body: missing_field]".
func describeGitHubError(resp *gogithub.ErrorResponse) string {
	if len(resp.Errors) == 0 {
		return resp.Message
	}
	details := make([]string, 0, len(resp.Errors))
	for _, e := range resp.Errors {
		d := e.Code
		if e.Message != "" {
			d = e.Message
		}
		if e.Resource != "" || e.Field != "" {
			d = e.Resource + "." + e.Field + ": " + d
		}
		details = append(details, d)
	}
	return resp.Message + " [" + strings.Join(details, "; ") + "]"
}
