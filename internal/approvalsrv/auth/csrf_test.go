package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

const testSecret = "test-approval-secret-0123456789abcdef"

// The page keeps any cookie of 32 characters or more; the form must accept
// the token it was given for such a cookie, or the form is always stale.
func TestFormTokenForAThirtyTwoCharacterCookieIsAccepted(t *testing.T) {
	g, err := NewCSRFGuard(testSecret)
	require.NoError(t, err)
	r := httptest.NewRequest(http.MethodGet, "/runs/run-1", nil)
	r.AddCookie(&http.Cookie{Name: CSRFCookie, Value: strings.Repeat("a", 32)})
	w := httptest.NewRecorder()

	token := g.Token(w, r)

	require.Empty(t, w.Result().Cookies(), "the browser's cookie is kept")
	require.True(t, g.Valid(r, token))
	require.False(t, g.Valid(r, ""))
}

// A Secure cookie sent over plain HTTP (dev mode on localhost) is dropped by
// the browser, and every form post would then be stale.
func TestCSRFCookieIsSecureOnlyOverHTTPS(t *testing.T) {
	g, err := NewCSRFGuard(testSecret)
	require.NoError(t, err)
	cookieFor := func(r *http.Request) *http.Cookie {
		w := httptest.NewRecorder()
		g.Token(w, r)
		cookies := w.Result().Cookies()
		require.Len(t, cookies, 1)
		return cookies[0]
	}
	proxied := httptest.NewRequest(http.MethodGet, "http://approvals.example/runs/run-1", nil)
	proxied.Header.Set("X-Forwarded-Proto", "HTTPS")

	require.False(t, cookieFor(httptest.NewRequest(http.MethodGet, "http://localhost/runs/run-1", nil)).Secure)
	require.True(t, cookieFor(httptest.NewRequest(http.MethodGet, "https://approvals.example/runs/run-1", nil)).Secure)
	require.True(t, cookieFor(proxied).Secure)
}

// With a secret, the key is derived from it, so a form rendered before a
// restart still checks out after it; without one (dev mode) the key is
// random, and it does not.
func TestFormTokensSurviveARestartOnlyWithASecret(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/runs/run-1/actions/act-1/decision", nil)
	r.AddCookie(&http.Cookie{Name: CSRFCookie, Value: strings.Repeat("b", 43)})
	tokenOf := func(secret string) (*CSRFGuard, string) {
		g, err := NewCSRFGuard(secret)
		require.NoError(t, err)
		return g, g.Token(httptest.NewRecorder(), r)
	}

	_, before := tokenOf(testSecret)
	after, _ := tokenOf(testSecret)
	require.True(t, after.Valid(r, before))

	_, devBefore := tokenOf("")
	devAfter, _ := tokenOf("")
	require.False(t, devAfter.Valid(r, devBefore))
	other, _ := tokenOf("another-approval-secret-0123456789")
	require.False(t, other.Valid(r, before))
}
