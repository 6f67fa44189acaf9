package httptool

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRetryAfterIsReadInSecondsOrAsADateAndBounded(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for value, want := range map[string]time.Duration{
		"":                              defaultRetryAfter,
		"12":                            12 * time.Second,
		"0":                             time.Second,
		"-5":                            time.Second,
		"99999999999":                   maxRetryAfter,
		"soon":                          defaultRetryAfter,
		"Tue, 01 Dec 2026 12:01:30 GMT": 90 * time.Second,
		"Tue, 01 Dec 2026 11:00:00 GMT": time.Second,
		"Tue, 01 Dec 2099 12:00:00 GMT": maxRetryAfter,
	} {
		h := http.Header{}
		if value != "" {
			h.Set("Retry-After", value)
		}
		assert.Equal(t, want, retryAfter(h, now), "Retry-After %q", value)
	}
}

func TestAnswerBodyIsShownAsJSONOnlyWhenItIsJSON(t *testing.T) {
	tl := &tool{maxResponse: 100, secrets: secretsOf(http.Header{"X-Key": {"Token abcdefgh12345"}})}
	for name, c := range map[string]struct {
		contentType, body, want string
	}{
		"json":                 {"application/json; charset=utf-8", `{"b":1, "a":"abcdefgh12345"}`, `{"a":"[redacted]","b":1}`},
		"problem json":         {"application/problem+json", `{"title":"x"}`, `{"title":"x"}`},
		"escaped secret":       {"application/json", `{"k":"\u0061bcdefgh12345"}`, `{"k":"[redacted]"}`},
		"text that looks json": {"text/plain", `123`, `"123"`},
		"json label, not json": {"application/json", `{oops`, `"{oops"`},
		"not UTF-8":            {"text/plain", "a\xffb", `"a` + "\uFFFD" + `b"`},
		"empty":                {"text/plain", "", ``},
	} {
		body, truncated := tl.readableBody(answer{header: http.Header{"Content-Type": {c.contentType}}, body: []byte(c.body)})
		assert.Equal(t, c.want, string(body), name)
		assert.Empty(t, truncated, name)
	}
	var quoted string
	body, truncated := tl.readableBody(answer{header: http.Header{}, body: []byte("0123456789" + "abcdefgh12345" + string(make([]byte, 100)))})
	require.NoError(t, json.Unmarshal(body, &quoted))
	assert.NotEmpty(t, truncated)
	assert.Contains(t, quoted, "[redacted]")
	body, _ = tl.readableBody(answer{header: http.Header{}, body: append(make([]byte, 95), "abcdefgh12345"...)})
	assert.NotContains(t, string(body), "abcde", "a secret the bound cuts through is scrubbed whole first")
}
