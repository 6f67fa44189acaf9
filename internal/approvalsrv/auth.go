package approvalsrv

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
)

// Every route of Handler belongs to one class, and this file alone decides
// who may reach each class:
//
//	public  /healthz, /static/ and the webhook (which checks GitHub's signature itself)
//	signed  /v1/*: an HMAC over timestamp, method, path and body (see Sign)
//	page    the pages, their panel, event stream and form: the login proxy's identity
//
// Dev mode (APPROVAL_INSECURE_DEV=1, loopback only) lets reads through
// without credentials; writes still need a signature when a secret is set.

type identityKey struct{}

// signed guards the /v1 API. It reads the body (a GET signs an empty one),
// verifies the signature over the request and hands the body on unchanged.
func (s *Server) signed(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			var o outcome
			if body, o = readLimitedBody(w, r, maxAPIBodyBytes); !o.ok() {
				writeOutcome(w, o)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if !s.signatureExempt(r) {
			if err := verifySignature([]byte(s.cfg.Secret), r, body, s.now()); err != nil {
				s.logger.Info("signed request refused", "method", r.Method, "path", r.URL.Path, "reason", err)
				writeError(w, http.StatusUnauthorized, err.Error())
				return
			}
		}
		next(w, r)
	})
}

// signatureExempt is dev mode's leniency: reads always, writes only while
// no secret is set.
func (s *Server) signatureExempt(r *http.Request) bool {
	if !s.cfg.InsecureDev {
		return false
	}
	return r.Method == http.MethodGet || r.Method == http.MethodHead || s.cfg.Secret == ""
}

// page guards the pages: outside dev mode they show run previews and take
// decisions, so they need the user the login proxy vouches for.
func (s *Server) page(next http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		identity, o := s.identify(r)
		if o.ok() && identity == "" && !s.cfg.InsecureDev {
			o = refused(http.StatusUnauthorized, "Sign in first: open this page through the login proxy.")
		}
		if !o.ok() {
			if wantsJSON(r) {
				writeOutcome(w, o)
			} else {
				s.errorPage(w, o)
			}
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, identity)))
	})
}

// identify reads the user the login proxy names. The header is believed only
// from a trusted proxy (anyone else can type it) and only once: two values
// mean a proxy appended to a header the client sent.
func (s *Server) identify(r *http.Request) (string, outcome) {
	name := s.cfg.IdentityHeader
	if name == "" {
		return "", accepted("")
	}
	values := r.Header.Values(name)
	if len(values) == 0 {
		return "", accepted("")
	}
	if !s.cfg.trusts(r.RemoteAddr) {
		s.logger.Warn("identity header from an untrusted peer", "peer", r.RemoteAddr, "header", name)
		return "", refused(http.StatusUnauthorized, "Sign in first: open this page through the login proxy.")
	}
	if len(values) > 1 || strings.Contains(values[0], ",") {
		s.logger.Warn("identity header repeated", "peer", r.RemoteAddr, "header", name)
		return "", refused(http.StatusBadRequest, "The login proxy sent more than one user.")
	}
	identity := strings.TrimSpace(values[0])
	if len(identity) > maxNameLength || hasControl(identity) {
		return "", refused(http.StatusBadRequest, "The login proxy sent an unusable user name.")
	}
	return identity, accepted("")
}

// identityFrom is the user the page middleware authenticated; empty in dev
// mode without a proxy.
func identityFrom(ctx context.Context) string {
	identity, _ := ctx.Value(identityKey{}).(string)
	return identity
}
