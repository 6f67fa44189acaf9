package approvalsrv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// credential is what a route asks of its caller. Every route declares one,
// and guard alone turns it into the check, so that no route is reachable
// without the check of its class. The zero value is no declaration: a table
// holding it does not build.
type credential int

const (
	credentialUndeclared credential = iota
	// credentialSigned: the /v1 API's HMAC over timestamp, method, path,
	// query and body (api.Sign). Dev mode lets reads through, and writes
	// while no secret is set.
	credentialSigned
	// credentialPage: the user a trusted login proxy names in
	// APPROVAL_IDENTITY_HEADER, a GitHub login. Dev mode lets a page through
	// without one. Outside dev mode a page of one run ({runId}) shows only
	// to who may read it (readscope.go).
	credentialPage
	// credentialGitHub: GitHub's X-Hub-Signature-256 over the delivery,
	// keyed with GITHUB_WEBHOOK_SECRET.
	credentialGitHub
	// credentialCodecToken: AGENTRUN_CODEC_TOKEN as a bearer token, checked
	// by the guard in constant time (the endpoint's own rule, Authorized)
	// before the endpoint runs. Only a browser's CORS preflight, which
	// carries no credentials, passes unchecked: the endpoint answers it from
	// its allowed origins and never decodes anything for it.
	credentialCodecToken
	// credentialOpen: anyone; nothing here shows or changes a run, so an
	// open route must be a GET without wildcards, or it does not build.
	credentialOpen
)

var credentialNames = map[credential]string{
	credentialSigned: "signed", credentialPage: "page", credentialGitHub: "GitHub signature",
	credentialCodecToken: "codec token", credentialOpen: "open",
}

func (c credential) String() string {
	if name, ok := credentialNames[c]; ok {
		return name
	}
	return fmt.Sprintf("undeclared(%d)", int(c))
}

// listener says where a route is served: the main listener (APPROVAL_ADDR),
// the webhook's own (APPROVAL_WEBHOOK_ADDR) when it has one, or both.
type listener int

const (
	onMain listener = 1 << iota
	// onWebhook routes are on the main listener too while there is no
	// webhook listener.
	onWebhook
)

type route struct {
	pattern    string
	credential credential
	listeners  listener
	handler    http.Handler
}

// routes is the one table of the server's routes: Handler and
// WebhookHandler register these and nothing else.
func (s *Server) routes() []route {
	// The page's own form is also guarded against cross-origin posts by the
	// browser's Sec-Fetch-Site header, on top of its CSRF token.
	formGuard := http.NewCrossOriginProtection()
	table := []route{
		{"POST /v1/runs/{runId}/actions/{actionId}/decision", credentialSigned, onMain, http.HandlerFunc(s.handleSignedDecision)},
		{"POST /v1/runs/{runId}/decision", credentialSigned, onMain, http.HandlerFunc(s.handleSignedBatch)},
		{"POST /v1/runs/{runId}/steps/{stepId}/resolve", credentialSigned, onMain, http.HandlerFunc(s.handleSignedResolve)},
		{"POST /v1/runs/{runId}/cancel", credentialSigned, onMain, http.HandlerFunc(s.handleSignedCancel)},
		{"POST /v1/runs", credentialSigned, onMain, http.HandlerFunc(s.handleStartRun)},
		{"GET /v1/runs", credentialSigned, onMain, http.HandlerFunc(s.handleListRuns)},
		{"GET /v1/runs/{runId}", credentialSigned, onMain, http.HandlerFunc(s.handleSnapshot)},
		{"GET /v1/runs/{runId}/events", credentialSigned, onMain, http.HandlerFunc(s.handleEvents)},
		{"POST /v1/holds", credentialSigned, onMain, http.HandlerFunc(s.handleHold)},
		{"POST /v1/holds/release", credentialSigned, onMain, http.HandlerFunc(s.handleRelease)},
		{"GET /v1/holds", credentialSigned, onMain, http.HandlerFunc(s.handleListHolds)},
		{"GET /v1/approvals", credentialSigned, onMain, http.HandlerFunc(s.handleApprovals)},
		{"GET /{$}", credentialPage, onMain, http.HandlerFunc(s.pages.serveInbox)},
		{"GET /runs", credentialPage, onMain, http.HandlerFunc(s.pages.serveHistory)},
		{"GET /runs/{runId}", credentialPage, onMain, http.HandlerFunc(s.pages.serveRunPage)},
		{"GET /runs/{runId}/panel", credentialPage, onMain, http.HandlerFunc(s.pages.servePanel)},
		{"GET /runs/{runId}/events", credentialPage, onMain, http.HandlerFunc(s.handleEvents)},
		{"POST /runs/{runId}/actions/{actionId}/decision", credentialPage, onMain, formGuard.Handler(http.HandlerFunc(s.pages.serveDecisionForm))},
		{"POST /runs/{runId}/decision", credentialPage, onMain, formGuard.Handler(http.HandlerFunc(s.pages.serveBatchForm))},
		{"POST /runs/{runId}/cancel", credentialPage, onMain, formGuard.Handler(http.HandlerFunc(s.pages.serveCancelForm))},
		{"POST /runs/{runId}/follow-up", credentialPage, onMain, formGuard.Handler(http.HandlerFunc(s.pages.serveFollowUpForm))},
		{"POST /github/webhook", credentialGitHub, onWebhook, http.HandlerFunc(s.handleWebhook)},
		{"GET /healthz", credentialOpen, onMain | onWebhook, http.HandlerFunc(handleHealth)},
		{"GET /static/", credentialOpen, onMain, staticFiles()},
	}
	if s.codec != nil {
		table = append(table, route{"/codec/", credentialCodecToken, onMain, s.codec})
	}
	return table
}

// Handler serves every route of the main listener; the webhook too unless
// APPROVAL_WEBHOOK_ADDR gives it a listener of its own (WebhookHandler).
func (s *Server) Handler() http.Handler {
	on := onMain
	if s.cfg.WebhookAddr == "" {
		on |= onWebhook
	}
	return securityHeaders(checkPathIDs(s.mux(on)))
}

// WebhookHandler serves only the GitHub webhook (and /healthz), for the
// listener of APPROVAL_WEBHOOK_ADDR.
func (s *Server) WebhookHandler() http.Handler {
	return securityHeaders(s.mux(onWebhook))
}

// mux registers the table's routes served on any of on, each behind the
// guard of its credential. It panics on a route without one: that is a
// programming error, caught by the route tests before it ships.
func (s *Server) mux(on listener) *http.ServeMux {
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		if rt.listeners&on == 0 {
			continue
		}
		guarded, err := s.guard(rt)
		if err != nil {
			panic(err)
		}
		mux.Handle(rt.pattern, guarded)
	}
	return mux
}

// guard wraps a route's handler in the check its credential names.
func (s *Server) guard(rt route) (http.Handler, error) {
	switch rt.credential {
	case credentialSigned:
		return s.signed(rt.handler), nil
	case credentialPage:
		return s.page(s.scopeToReaders(rt.pattern, rt.handler)), nil
	case credentialGitHub:
		return s.gitHubSigned(rt.handler), nil
	case credentialCodecToken:
		return s.codecToken(rt)
	case credentialOpen:
		return openRoute(rt)
	}
	return nil, fmt.Errorf("approval server: route %q declares no credential (%s)", rt.pattern, rt.credential)
}

// signed guards the /v1 API. It reads the body (a GET signs an empty one),
// verifies the signature over the request and hands the body on unchanged.
func (s *Server) signed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			var o outcome
			if body, o = readBody(w, r, maxAPIBodyBytes); !o.OK() {
				writeOutcome(w, o)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if !s.signatureExempt(r) {
			if err := api.VerifySignature([]byte(s.cfg.Secret), r, body, s.now()); err != nil {
				s.logger.Info("signed request refused", "method", r.Method, "path", r.URL.Path, "reason", err)
				writeError(w, http.StatusUnauthorized, err.Error())
				return
			}
		}
		next.ServeHTTP(w, r)
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
func (s *Server) page(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		identity, err := s.cfg.proxy().Identify(r, s.logger)
		o := accepted("")
		var refusal *auth.Refusal
		switch {
		case errors.As(err, &refusal):
			o = refused(refusal.Code, refusal.Message)
		case err != nil:
			o = refused(http.StatusBadRequest, "bad request")
		case identity == "" && !s.cfg.InsecureDev:
			o = refused(http.StatusUnauthorized, auth.SignInFirst)
		}
		if !o.OK() {
			if wantsJSON(r) {
				writeOutcome(w, o)
			} else {
				s.pages.pageError(w, o)
			}
			return
		}
		next.ServeHTTP(w, r.WithContext(auth.WithIdentity(r.Context(), identity)))
	})
}

// gitHubSigned guards the webhook: a delivery counts only with GitHub's
// SHA-256 signature (ValidatePayload would fall back to SHA-1). The handler
// reads the validated payload, JSON whichever content type carried it.
func (s *Server) gitHubSigned(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hasMediaType(r, "application/json") && !hasMediaType(r, "application/x-www-form-urlencoded") {
			writeError(w, http.StatusUnsupportedMediaType, "Content-Type must be application/json or application/x-www-form-urlencoded")
			return
		}
		if s.cfg.WebhookSecret != "" && r.Header.Get(github.SHA256SignatureHeader) == "" {
			writeError(w, http.StatusUnauthorized, "missing "+github.SHA256SignatureHeader)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxWebhookBodyBytes)
		payload, err := github.ValidatePayload(r, []byte(s.cfg.WebhookSecret))
		if err != nil {
			if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
				writeError(w, http.StatusRequestEntityTooLarge, "the delivery is too large")
				return
			}
			s.logger.Info("webhook delivery refused", "reason", err, "delivery", github.DeliveryID(r))
			writeError(w, http.StatusUnauthorized, "bad webhook signature")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(payload))
		next.ServeHTTP(w, r)
	})
}

// codecEndpoint is what the codec-token class needs of its handler: the
// endpoint's own token rule (payloadcodec's handler).
type codecEndpoint interface {
	http.Handler
	Authorized(r *http.Request) bool
}

// codecToken guards the codec endpoint: nothing reaches it without the
// token but a browser's CORS preflight, which only asks whether the real
// request may follow.
func (s *Server) codecToken(rt route) (http.Handler, error) {
	endpoint, ok := rt.handler.(codecEndpoint)
	if !ok {
		return nil, fmt.Errorf("approval server: route %q (codec token) has a handler that cannot check a token", rt.pattern)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodOptions && r.Header.Get("Origin") != "" {
			endpoint.ServeHTTP(w, r)
			return
		}
		if !endpoint.Authorized(r) {
			s.logger.Warn("codec request refused: no valid token", "path", r.URL.Path, "peer", r.RemoteAddr, "origin", r.Header.Get("Origin"))
			w.Header().Set("WWW-Authenticate", `Bearer realm="agentrun codec"`)
			writeError(w, http.StatusUnauthorized, "codec endpoint needs Authorization: Bearer <AGENTRUN_CODEC_TOKEN>")
			return
		}
		endpoint.ServeHTTP(w, r)
	}), nil
}

// openRoute is the open class's check, made when the table is built: a
// route anyone may call reads no run and changes nothing, so it is a GET
// (and HEAD) of a fixed path.
func openRoute(rt route) (http.Handler, error) {
	if !strings.HasPrefix(rt.pattern, http.MethodGet+" ") || strings.Contains(rt.pattern, "{") {
		return nil, fmt.Errorf("approval server: open route %q must be a GET of a path without wildcards", rt.pattern)
	}
	return rt.handler, nil
}
