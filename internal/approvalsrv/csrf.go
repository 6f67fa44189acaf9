package approvalsrv

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
)

const csrfCookie = "agentrun_csrf"

// csrfGuard issues and checks the page form's CSRF token: a random cookie
// bound to a token that only this server can compute, so that another site
// can neither read nor forge the pair.
type csrfGuard struct {
	key []byte
}

// newCSRFGuard derives its key from the API secret so that tokens survive a
// restart; without a secret (dev mode) a random key is fine.
func newCSRFGuard(secret string) (*csrfGuard, error) {
	if secret != "" {
		h := hmac.New(sha256.New, []byte(secret))
		h.Write([]byte("agentrun approval csrf key"))
		return &csrfGuard{key: h.Sum(nil)}, nil
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("csrf key: %w", err)
	}
	return &csrfGuard{key: key}, nil
}

// token returns the form token for this browser, setting its cookie first
// when it has none.
func (g *csrfGuard) token(w http.ResponseWriter, r *http.Request) string {
	binding := ""
	if c, err := r.Cookie(csrfCookie); err == nil && len(c.Value) >= 32 {
		binding = c.Value
	} else {
		binding = randomToken()
		http.SetCookie(w, &http.Cookie{
			Name:     csrfCookie,
			Value:    binding,
			Path:     "/",
			HttpOnly: true,
			Secure:   isHTTPS(r),
			SameSite: http.SameSiteStrictMode,
		})
	}
	return g.sign(binding)
}

func (g *csrfGuard) valid(r *http.Request, token string) bool {
	c, err := r.Cookie(csrfCookie)
	if err != nil || len(c.Value) < 32 || token == "" {
		return false
	}
	return hmac.Equal([]byte(token), []byte(g.sign(c.Value)))
}

func (g *csrfGuard) sign(binding string) string {
	h := hmac.New(sha256.New, g.key)
	h.Write([]byte("csrf|" + binding))
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

func randomToken() string {
	b := make([]byte, 32)
	// crypto/rand.Read never fails on supported platforms (Go 1.24+).
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func isHTTPS(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}
