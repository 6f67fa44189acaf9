package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	oai "github.com/openai/openai-go/v3"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// Application error types of the OpenAI-compatible provider, next to
// ErrTypeModelRejected. Both are retried, after the delay the provider asked for.
const (
	// ErrTypeModelRateLimited: the provider answered 429 (not for a spent quota).
	ErrTypeModelRateLimited = "ModelRateLimited"
	// ErrTypeModelUnavailable: the provider answered 5xx, 408 or 409.
	ErrTypeModelUnavailable = "ModelUnavailable"
)

// maxRetryAfter bounds a provider's Retry-After, so that an absurd or
// hostile value cannot park a run for days; the retry policy still applies.
const maxRetryAfter = time.Hour

// providerMessageLimit bounds how much of a provider's message an error keeps.
const providerMessageLimit = 1000

// apiKeyPattern matches OpenAI-style keys, whole or masked as OpenAI's own 401
// message shows them (sk-abc***xyz), so neither ends up in history.
var apiKeyPattern = regexp.MustCompile(`\bsk-[A-Za-z0-9_*\-]{3,}`)

// chatCompletionError turns a failed chat-completions call into the error the
// workflow's retry policy acts on. resp is the provider's answer, nil when
// none came. apiKey is only used to scrub it from the provider's message.
func chatCompletionError(err error, resp *http.Response, apiKey string) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("openai chat completion: %w", err)
	}
	if resp == nil || resp.StatusCode < 400 {
		// A transport failure: a plain error, which Temporal retries with backoff.
		return fmt.Errorf("openai chat completion: %s", scrubAPIKey(err.Error(), apiKey))
	}
	problem := providerProblemFrom(err, resp)
	msg := "openai chat completion: " + scrubAPIKey(problem.describe(resp.StatusCode), apiKey)
	switch {
	case resp.StatusCode == http.StatusTooManyRequests && problem.Code == "insufficient_quota":
		// A spent quota is a 429 too, but waiting does not refill it.
		return temporal.NewNonRetryableApplicationError(msg, api.ErrTypeModelRejected, nil)
	case resp.StatusCode == http.StatusTooManyRequests:
		return retryableModelError(msg, ErrTypeModelRateLimited, resp.Header)
	case resp.StatusCode >= 500 || resp.StatusCode == http.StatusRequestTimeout || resp.StatusCode == http.StatusConflict:
		return retryableModelError(msg, ErrTypeModelUnavailable, resp.Header)
	default:
		return temporal.NewNonRetryableApplicationError(msg, api.ErrTypeModelRejected, nil)
	}
}

func retryableModelError(msg, errType string, header http.Header) error {
	delay := retryAfter(header, time.Now())
	if delay > 0 {
		msg += fmt.Sprintf(" (retry after %s)", delay)
	}
	return temporal.NewApplicationErrorWithOptions(msg, errType, temporal.ApplicationErrorOptions{NextRetryDelay: delay})
}

// retryAfter reads how long the provider asked us to wait: OpenAI's
// retry-after-ms first, then the standard Retry-After in seconds or as an
// HTTP date. Zero means no usable hint, and the retry policy's backoff applies.
func retryAfter(header http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(header.Get("Retry-After-Ms"), 64); err == nil {
		return boundedDelay(ms * float64(time.Millisecond))
	}
	value := header.Get("Retry-After")
	if seconds, err := strconv.ParseFloat(value, 64); err == nil {
		return boundedDelay(seconds * float64(time.Second))
	}
	if at, err := http.ParseTime(value); err == nil && at.After(now) {
		return boundedDelay(float64(at.Sub(now)))
	}
	return 0
}

func boundedDelay(nanos float64) time.Duration {
	if math.IsNaN(nanos) || nanos <= 0 {
		return 0
	}
	if nanos >= float64(maxRetryAfter) {
		return maxRetryAfter
	}
	return time.Duration(nanos)
}

// providerProblem is what the provider said went wrong.
type providerProblem struct {
	Message, Type, Code string
}

// providerProblemFrom reads OpenAI's error object, or failing that (a proxy's
// HTML page, a compatible server's own format) the start of the body.
func providerProblemFrom(err error, resp *http.Response) providerProblem {
	var apiErr *oai.Error
	if errors.As(err, &apiErr) && apiErr.Message != "" {
		return providerProblem{Message: apiErr.Message, Type: apiErr.Type, Code: apiErr.Code}
	}
	if resp.Body == nil {
		return providerProblem{}
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, providerMessageLimit))
	return providerProblem{Message: string(bytes.TrimSpace(body))}
}

func (p providerProblem) describe(status int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s", status, http.StatusText(status))
	if p.Message != "" {
		b.WriteString(": ")
		b.WriteString(truncateMessage(p.Message))
	}
	var labels []string
	if p.Type != "" {
		labels = append(labels, "type "+p.Type)
	}
	if p.Code != "" {
		labels = append(labels, "code "+p.Code)
	}
	if len(labels) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(labels, ", "))
	}
	return b.String()
}

func truncateMessage(s string) string {
	if len(s) <= providerMessageLimit {
		return s
	}
	cut := providerMessageLimit
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// scrubAPIKey removes the key, and anything shaped like an OpenAI key, from a
// message that is about to become part of a run's history.
func scrubAPIKey(msg, apiKey string) string {
	if apiKey != "" {
		msg = strings.ReplaceAll(msg, apiKey, "[redacted]")
	}
	return apiKeyPattern.ReplaceAllString(msg, "sk-[redacted]")
}
