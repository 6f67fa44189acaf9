package ghsandbox

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Documentation links GitHub puts in error bodies.
const (
	DocsGetPull        = "https://docs.github.com/rest/pulls/pulls#get-a-pull-request"
	DocsListFiles      = "https://docs.github.com/rest/pulls/pulls#list-pull-requests-files"
	DocsListComments   = "https://docs.github.com/rest/issues/comments#list-issue-comments"
	DocsCreateComment  = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	DocsCreateReview   = "https://docs.github.com/rest/pulls/reviews#create-a-review-for-a-pull-request"
	DocsListReviews    = "https://docs.github.com/rest/pulls/reviews#list-reviews-for-a-pull-request"
	DocsAddLabels      = "https://docs.github.com/rest/issues/labels#add-labels-to-an-issue"
	DocsListLabels     = "https://docs.github.com/rest/issues/labels#list-labels-for-an-issue"
	DocsListRepoLabels = "https://docs.github.com/rest/issues/labels#list-labels-for-a-repository"
	DocsCreateIssue    = "https://docs.github.com/rest/issues/issues#create-an-issue"
	DocsListIssues     = "https://docs.github.com/rest/issues/issues#list-repository-issues"
	DocsPermission     = "https://docs.github.com/rest/collaborators/collaborators#get-repository-permissions-for-a-user"
	docsPrimaryLimit   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-rate-limits"
	docsSecondaryLimit = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
	DocsREST           = "https://docs.github.com/rest"
)

// Response is a response computed before it is written, so that a fault
// can decide whether and when it reaches the client.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON answers v as JSON with status; a value that cannot be encoded is a 500.
func JSON(status int, v any) Response {
	body, err := json.Marshal(v)
	if err != nil {
		return Response{
			Status: http.StatusInternalServerError,
			Header: http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
			Body:   []byte("ghsandbox: encode response: " + err.Error()),
		}
	}
	return Response{
		Status: status,
		Header: http.Header{"Content-Type": {"application/json; charset=utf-8"}},
		Body:   body,
	}
}

// Write sends the response.
func (resp Response) Write(w http.ResponseWriter) {
	h := w.Header()
	for k, v := range resp.Header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body) // the client may be gone; nothing to do about it
}

// WithHealthyRateLimit adds the rate-limit headers GitHub sends on every
// answer, unless a fault already set its own.
func (resp Response) WithHealthyRateLimit(now time.Time) Response {
	if resp.Header.Get("X-RateLimit-Remaining") != "" {
		return resp
	}
	resp.Header.Set("X-RateLimit-Limit", "5000")
	resp.Header.Set("X-RateLimit-Remaining", "4999")
	resp.Header.Set("X-RateLimit-Used", "1")
	resp.Header.Set("X-RateLimit-Reset", strconv.FormatInt(now.Add(time.Hour).Unix(), 10))
	resp.Header.Set("X-RateLimit-Resource", "core")
	return resp
}

// ErrorBody is GitHub's error shape, which go-github decodes into ErrorResponse.
type ErrorBody struct {
	Message          string            `json:"message"`
	Errors           []ValidationError `json:"errors,omitempty"`
	DocumentationURL string            `json:"documentation_url"`
	Status           string            `json:"status"`
}

// ValidationError is one entry of a 422's errors. go-github's Error always
// sends a message, which GitHub leaves out of a missing field's entry.
type ValidationError struct {
	Resource string `json:"resource"`
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message,omitempty"`
}

// Error is GitHub's answer for a failed request.
func Error(status int, message, docs string, errs ...ValidationError) Response {
	return JSON(status, ErrorBody{
		Message:          message,
		Errors:           errs,
		DocumentationURL: docs,
		Status:           strconv.Itoa(status),
	})
}

// NotFound is GitHub's 404, which it also gives for what the token may not see.
func NotFound(docs string) Response {
	return Error(http.StatusNotFound, "Not Found", docs)
}

// ValidationFailed is GitHub's 422.
func ValidationFailed(docs string, errs ...ValidationError) Response {
	return Error(http.StatusUnprocessableEntity, "Validation Failed", docs, errs...)
}

// PrimaryRateLimit: go-github recognises a primary limit by a 403
// with X-RateLimit-Remaining: 0 and reads the wait from X-RateLimit-Reset.
func PrimaryRateLimit(status int, reset time.Time) Response {
	resp := Error(status, "API rate limit exceeded for user ID 1.", docsPrimaryLimit)
	resp.Header.Set("X-RateLimit-Limit", "5000")
	resp.Header.Set("X-RateLimit-Remaining", "0")
	resp.Header.Set("X-RateLimit-Used", "5000")
	resp.Header.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	resp.Header.Set("X-RateLimit-Resource", "core")
	return resp
}

// SecondaryRateLimit: go-github recognises a secondary limit by a 403
// whose documentation_url ends in "secondary-rate-limits", and reads the wait
// from Retry-After.
func SecondaryRateLimit(status, retryAfter int) Response {
	resp := Error(status,
		"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		docsSecondaryLimit)
	if retryAfter > 0 {
		resp.Header.Set("Retry-After", strconv.Itoa(retryAfter))
	}
	return resp
}

// StatusMessage is the message GitHub sends with an error status.
func StatusMessage(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "Problems parsing JSON"
	case http.StatusUnauthorized:
		return "Bad credentials"
	case http.StatusForbidden:
		return "Resource not accessible by integration"
	case http.StatusNotFound:
		return "Not Found"
	case http.StatusInternalServerError, http.StatusBadGateway:
		return "Server Error"
	}
	return http.StatusText(status)
}
