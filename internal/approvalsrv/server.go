package approvalsrv

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// Limits of the server.
const (
	maxAPIBodyBytes     = 64 << 10
	maxWebhookBodyBytes = 5 << 20
	maxFormBodyBytes    = 64 << 10
	rememberedAnswers   = 10000
	refusalsPerRun      = 50
	runsWithRefusals    = 1000
	// runsWithRefusalSignals is how many runs the refusal-signal cap
	// remembers; a run forgotten may receive refusalSignalsPerRun again.
	runsWithRefusalSignals = 10000
	defaultEventPoll       = 300 * time.Millisecond
)

// Options carries what the server gets from its process.
type Options struct {
	Runs        Runs
	Permissions PermissionChecker
	Logger      *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// EventPollInterval is how often an SSE stream asks the run for new events.
	EventPollInterval time.Duration
}

// Server serves the approval API, webhook and pages.
type Server struct {
	cfg            Config
	runs           Runs
	permissions    PermissionChecker
	logger         *slog.Logger
	now            func() time.Time
	streams        *streamHub
	inbox          *inboxCache
	answers        *answerMemo
	deliveries     *answerMemo
	refusals       *refusalLog
	refusalSignals *refusalSignalBudget
	csrf           *csrfGuard
	pages          *pageTemplates
}

// New builds a Server. Permissions may be nil only when every run names its
// approvers; the webhook then refuses commands on runs without approvers.
func New(cfg Config, opts Options) (*Server, error) {
	if opts.Runs == nil {
		return nil, errors.New("approval server: Runs is required")
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.EventPollInterval <= 0 {
		opts.EventPollInterval = defaultEventPoll
	}
	csrf, err := newCSRFGuard(cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("approval server: %w", err)
	}
	pages, err := parsePageTemplates()
	if err != nil {
		return nil, fmt.Errorf("approval server: %w", err)
	}
	return &Server{
		cfg:            cfg,
		runs:           opts.Runs,
		permissions:    opts.Permissions,
		logger:         opts.Logger,
		now:            opts.Now,
		streams:        newStreamHub(opts.Runs, opts.EventPollInterval, opts.Logger),
		inbox:          newInboxCache(opts.Runs, opts.Now),
		answers:        newAnswerMemo(rememberedAnswers),
		deliveries:     newAnswerMemo(rememberedAnswers),
		refusals:       newRefusalLog(refusalsPerRun, runsWithRefusals),
		refusalSignals: newRefusalSignalBudget(refusalSignalsPerRun, runsWithRefusalSignals),
		csrf:           csrf,
		pages:          pages,
	}, nil
}

// Handler routes every endpoint of the server; the webhook too unless
// APPROVAL_WEBHOOK_ADDR gives it a listener of its own (WebhookHandler).
// Each route names its class (auth.go): public, signed or page.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /v1/runs/{runId}/actions/{actionId}/decision", s.signed(s.handleSignedDecision))
	mux.Handle("POST /v1/runs/{runId}/steps/{stepId}/resolve", s.signed(s.handleSignedResolve))
	mux.Handle("GET /v1/runs/{runId}", s.signed(s.handleSnapshot))
	mux.Handle("GET /v1/runs/{runId}/events", s.signed(s.handleEvents))
	mux.Handle("GET /v1/approvals", s.signed(s.handleApprovals))
	if s.cfg.WebhookAddr == "" {
		mux.HandleFunc("POST /github/webhook", s.handleWebhook)
	}
	mux.HandleFunc("GET /healthz", handleHealth)
	mux.Handle("GET /static/", staticHandler())

	// The page's own form is also guarded against cross-origin posts by the
	// browser's Sec-Fetch-Site header, on top of its CSRF token.
	formGuard := http.NewCrossOriginProtection()
	mux.Handle("GET /{$}", s.page(s.handleInboxPage))
	mux.Handle("GET /runs", s.page(s.handleHistoryPage))
	mux.Handle("GET /runs/{runId}", s.page(s.handleRunPage))
	mux.Handle("GET /runs/{runId}/panel", s.page(s.handleRunPanel))
	mux.Handle("GET /runs/{runId}/events", s.page(s.handleEvents))
	mux.Handle("POST /runs/{runId}/actions/{actionId}/decision", formGuard.Handler(s.page(s.handleFormDecision)))
	return securityHeaders(checkPathIDs(mux))
}

// WebhookHandler serves only the GitHub webhook (and /healthz), for the
// listener of APPROVAL_WEBHOOK_ADDR.
func (s *Server) WebhookHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /github/webhook", s.handleWebhook)
	mux.HandleFunc("GET /healthz", handleHealth)
	return securityHeaders(mux)
}

func handleHealth(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		next.ServeHTTP(w, r)
	})
}
