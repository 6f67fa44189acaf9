package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

// CSRFCookie holds the browser's half of the form token.
const CSRFCookie = "agentrun_csrf"

// CSRFGuard issues and checks the page form's CSRF token: a random cookie
// bound to a token that only this server can compute, so that another site
// can neither read nor forge the pair.
type CSRFGuard struct {
	key []byte
}

// NewCSRFGuard derives its key from the API secret so that tokens survive a
// restart; without a secret (dev mode) a random key is fine.
func NewCSRFGuard(secret string) (*CSRFGuard, error) {
	if secret != "" {
		h := hmac.New(sha256.New, []byte(secret))
		h.Write([]byte("agentrun approval csrf key"))
		return &CSRFGuard{key: h.Sum(nil)}, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("csrf key: %w", err)
	}
	return &CSRFGuard{key: key}, nil
}

// Token returns the form token for this browser, setting its cookie first
// when it has none.
func (g *CSRFGuard) Token(w http.ResponseWriter, r *http.Request) string {
	binding := ""
	if c, err := r.Cookie(CSRFCookie); err == nil && len(c.Value) >= 32 {
		binding = c.Value
	} else {
		binding = RandomToken()
		http.SetCookie(w, &http.Cookie{
			Name:     CSRFCookie,
			Value:    binding,
			Path:     "/",
			HttpOnly: true,
			Secure:   isHTTPS(r),
			SameSite: http.SameSiteStrictMode,
		})
	}
	return g.sign(binding)
}

// Valid reports whether token is the one this server gave r's cookie.
func (g *CSRFGuard) Valid(r *http.Request, token string) bool {
	c, err := r.Cookie(CSRFCookie)
	if err != nil || len(c.Value) < 32 || token == "" {
		return false
	}
	return hmac.Equal([]byte(token), []byte(g.sign(c.Value)))
}

func (g *CSRFGuard) sign(binding string) string {
	h := hmac.New(sha256.New, g.key)
	h.Write([]byte("csrf|" + binding))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// RandomToken is 32 random bytes, URL-safe: a cookie or a request ID no one
// can guess.
func RandomToken() string {
	b := make([]byte, 32)
	// crypto/rand.Read never fails on supported platforms (Go 1.24+).
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func isHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}
