package httptool

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A path is printable ASCII, space to tilde: what a server could fold into
// something else is refused, and nothing printable is.
func TestAPathIsPrintableASCIIBothEndsIncluded(t *testing.T) {
	assert.NoError(t, checkPath("/v1/orders/a b"), "a space is printable")
	assert.NoError(t, checkPath("/v1/orders/~x"), "so is a tilde")
	for _, p := range []string{"/v1/orders/\x1f", "/v1/orders/\x7f", "/v1/orders/\x00", "/v1/ｏrders"} {
		assert.EqualError(t, checkPath(p), "want printable ASCII only", "%q", p)
	}
}

// The bounds of what is sent hold at exactly their size: a body of
// MaxBodyBytes of canonical JSON and a URL of maxURLBytes are sent, one
// byte more is refused.
func TestTheBodyAndTheURLAreBoundedAtExactlyTheirSize(t *testing.T) {
	fits := json.RawMessage(`"` + strings.Repeat("x", MaxBodyBytes-2) + `"`)
	body, err := canonicalBody(fits)
	require.NoError(t, err)
	assert.Len(t, body, MaxBodyBytes)
	_, err = canonicalBody(json.RawMessage(`"` + strings.Repeat("x", MaxBodyBytes-1) + `"`))
	assert.EqualError(t, err, "body: 65537 bytes of JSON, more than 65536")

	base, err := url.Parse("http://orders.example/api")
	require.NoError(t, err)
	tl := &tool{base: base}
	prefix := len("http://orders.example/api/v1/orders?q=")
	u, err := tl.resolve("/v1/orders", url.Values{"q": {strings.Repeat("y", maxURLBytes-prefix)}})
	require.NoError(t, err)
	assert.Len(t, u.String(), maxURLBytes)
	_, err = tl.resolve("/v1/orders", url.Values{"q": {strings.Repeat("y", maxURLBytes-prefix+1)}})
	assert.EqualError(t, err, "the URL is 8193 bytes, more than 8192")
}

// An Idempotency-Key is printable ASCII without spaces, both ends held.
func TestAnOperationKeyIsSentOnlyAsPrintableASCII(t *testing.T) {
	assert.NoError(t, checkKey("run-1:5"))
	assert.NoError(t, checkKey("!run~1"), "! and ~ are the ends of what is taken")
	assert.NoError(t, checkKey(strings.Repeat("k", maxKeyBytes)), "a key of exactly the bound")
	assert.EqualError(t, checkKey(strings.Repeat("k", maxKeyBytes+1)),
		fmt.Sprintf("the operationKey is %d bytes, more than the %d an Idempotency-Key takes", maxKeyBytes+1, maxKeyBytes))
	for _, key := range []string{"run 1", "run-1:5\x7f", "run-1:5\x1f", "run-é"} {
		assert.EqualError(t, checkKey(key), "the operationKey is not printable ASCII", "%q", key)
	}
}

// What an answer proves, at each edge of its class: only a 2xx (or a 303
// to a write) is done, a 4xx but 408, 409, 425 and 429 is a refusal, and
// anything else leaves the outcome unknown.
func TestWhatEachAnswerProvesAtTheEdgesOfItsClass(t *testing.T) {
	for _, tc := range []struct {
		method string
		status int
		want   verdict
	}{
		{"POST", 199, unknown},
		{"POST", 200, done},
		{"POST", 299, done},
		{"POST", 300, redirectedUnknown},
		{"GET", 300, redirected},
		{"POST", 303, done},
		{"GET", 303, redirected},
		{"GET", 399, redirected},
		{"POST", 399, redirectedUnknown},
		{"GET", 400, refused},
		{"POST", 400, refused},
		{"POST", 404, refused},
		{"POST", 408, unknown},
		{"POST", 409, unknown},
		{"POST", 425, unknown},
		{"POST", 429, rateLimited},
		{"GET", 429, rateLimited},
		{"POST", 499, refused},
		{"POST", 500, unknown},
		{"POST", 503, unknown},
	} {
		assert.Equal(t, tc.want, classify(tc.method, tc.status), "%s answered %d", tc.method, tc.status)
	}
}
