package api

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

const testSecret = "test-approval-secret-0123456789abcdef"

var testNow = time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)

// signed is a request to target as the server receives it, signed by a
// client that saw signedTarget.
func signed(t *testing.T, method, signedTarget, target string, body []byte) *http.Request {
	t.Helper()
	client := httptest.NewRequest(method, signedTarget, nil)
	SignRequest(client, []byte(testSecret), body, testNow)
	server := httptest.NewRequest(method, target, nil)
	server.Header = client.Header.Clone()
	return server
}

func TestSignatureWindowEndsOneSecondPastFiveMinutesEitherWay(t *testing.T) {
	stamp := func(offset time.Duration) string { return strconv.FormatInt(testNow.Add(offset).Unix(), 10) }

	// The window is the documented ±5 minutes (docs/using.md), not whatever
	// MaxSignatureSkew says.
	require.NoError(t, checkTimestamp(stamp(-5*time.Minute), testNow))
	require.NoError(t, checkTimestamp(stamp(5*time.Minute), testNow))
	require.ErrorIs(t, checkTimestamp(stamp(-5*time.Minute-time.Second), testNow), errStaleTimestamp)
	require.ErrorIs(t, checkTimestamp(stamp(5*time.Minute+time.Second), testNow), errStaleTimestamp)
}

// A comparison that stopped early (first byte, or a prefix) would accept it.
func TestSignatureDifferingOnlyInItsLastByteIsRefused(t *testing.T) {
	r := signed(t, http.MethodPost, "/v1/runs/run-1/actions/act-1/decision", "/v1/runs/run-1/actions/act-1/decision", []byte("{}"))
	require.NoError(t, VerifySignature([]byte(testSecret), r, []byte("{}"), testNow))
	good := r.Header.Get(HeaderSignature)
	flipped := byte('0')
	if good[len(good)-1] == '0' {
		flipped = '1'
	}
	r.Header.Set(HeaderSignature, good[:len(good)-1]+string(flipped))

	require.ErrorIs(t, VerifySignature([]byte(testSecret), r, []byte("{}"), testNow), errBadSignature)
}

func TestSignatureRefusesWhatIsMissingOrMalformed(t *testing.T) {
	cases := map[string]struct {
		timestamp, signature string
		want                 error
	}{
		"no timestamp":       {"", "sha256=00", errMissingTimestamp},
		"timestamp not unix": {"yesterday", "sha256=00", errBadTimestamp},
		"no signature":       {strconv.FormatInt(testNow.Unix(), 10), "", errMissingSignature},
		"no sha256= prefix":  {strconv.FormatInt(testNow.Unix(), 10), "00", errBadSignatureForm},
		"not hex":            {strconv.FormatInt(testNow.Unix(), 10), "sha256=zz", errBadSignatureForm},
		"too short":          {strconv.FormatInt(testNow.Unix(), 10), "sha256=00ff", errBadSignatureForm},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/v1/approvals", nil)
			r.Header.Set(HeaderTimestamp, c.timestamp)
			r.Header.Set(HeaderSignature, c.signature)
			require.ErrorIs(t, VerifySignature([]byte(testSecret), r, nil, testNow), c.want)
		})
	}
}

// The query is signed byte for byte as sent: a captured read replayed with
// a parameter added, removed, changed or reordered is refused.
func TestSignatureCoversTheQueryAsSent(t *testing.T) {
	const target = "/v1/runs/run-1/events?lastEventId=3&x=1"
	for _, replayed := range []string{
		"/v1/runs/run-1/events?lastEventId=3&x=1&status=failed",
		"/v1/runs/run-1/events?lastEventId=3",
		"/v1/runs/run-1/events",
		"/v1/runs/run-1/events?lastEventId=0&x=1",
		"/v1/runs/run-1/events?x=1&lastEventId=3",
		"/v1/runs/run-1/events?lastEventId=%33&x=1",
	} {
		r := signed(t, http.MethodGet, target, replayed, nil)
		require.ErrorIs(t, VerifySignature([]byte(testSecret), r, nil, testNow), errBadSignature, replayed)
	}
	require.NoError(t, VerifySignature([]byte(testSecret), signed(t, http.MethodGet, target, target, nil), nil, testNow))
}

// A bare "?" carries no query, so it signs as no query at all.
func TestSignedTargetIsThePathAloneWithoutAQuery(t *testing.T) {
	for raw, want := range map[string]string{
		"/v1/runs/run%3A1":             "/v1/runs/run%3A1",
		"/v1/runs/run-1?":              "/v1/runs/run-1",
		"/v1/runs/run-1/events?a=1&b=": "/v1/runs/run-1/events?a=1&b=",
	} {
		require.Equal(t, want, SignedTarget(httptest.NewRequest(http.MethodGet, raw, nil).URL), raw)
	}
}

// The key decides which run a start finds: a signature made under one key
// holds for it alone, and one made without a key does not hold with one.
func TestSignatureCoversTheIdempotencyKey(t *testing.T) {
	keyed := func(key string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/v1/runs", nil)
		if key != "" {
			r.Header.Set(HeaderIdempotencyKey, key)
		}
		SignRequest(r, []byte(testSecret), []byte("{}"), testNow)
		return r
	}
	r := keyed("k-1")
	require.NoError(t, VerifySignature([]byte(testSecret), r, []byte("{}"), testNow))

	r.Header.Set(HeaderIdempotencyKey, "k-2")
	require.ErrorIs(t, VerifySignature([]byte(testSecret), r, []byte("{}"), testNow), errBadSignature, "another key")

	r.Header.Del(HeaderIdempotencyKey)
	require.ErrorIs(t, VerifySignature([]byte(testSecret), r, []byte("{}"), testNow), errBadSignature, "the key dropped")

	unkeyed := keyed("")
	unkeyed.Header.Set(HeaderIdempotencyKey, "k-1")
	require.ErrorIs(t, VerifySignature([]byte(testSecret), unkeyed, []byte("{}"), testNow), errBadSignature, "a key added")

	// The key's line cannot be moved into the body: the target never holds a
	// newline, so "target\nIdempotency-Key: k" has one reading only.
	moved := httptest.NewRequest(http.MethodPost, "/v1/runs", nil)
	SignRequest(moved, []byte(testSecret), []byte("\nIdempotency-Key: k-1.{}"), testNow)
	moved.Header.Set(HeaderIdempotencyKey, "k-1")
	require.Error(t, VerifySignature([]byte(testSecret), moved, []byte("{}"), testNow))
}

// A request without an Idempotency-Key is signed as the scheme documents
// it, timestamp, method, target and body alone, so that a client of another
// language signing by the documentation is accepted; with a key, the key's
// line joins the target.
func TestARequestWithoutAKeyIsSignedOverItsTargetAlone(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/v1/runs/run-1?since=3", nil)
	SignRequest(r, []byte(testSecret), nil, testNow)
	stamp := strconv.FormatInt(testNow.Unix(), 10)
	require.Equal(t, stamp, r.Header.Get(HeaderTimestamp))
	require.Equal(t, Sign([]byte(testSecret), stamp, http.MethodGet, SignedTarget(r.URL), nil), r.Header.Get(HeaderSignature))

	k := httptest.NewRequest(http.MethodPost, "/v1/runs", nil)
	k.Header.Set(HeaderIdempotencyKey, "k-1")
	SignRequest(k, []byte(testSecret), []byte("{}"), testNow)
	require.Equal(t, Sign([]byte(testSecret), stamp, http.MethodPost, "/v1/runs\n"+HeaderIdempotencyKey+": k-1", []byte("{}")), k.Header.Get(HeaderSignature))
}
