package httptool

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
