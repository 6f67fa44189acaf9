package approvalsrv

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
)

// Limits of the server.
const (
	maxAPIBodyBytes     = 64 << 10
	maxWebhookBodyBytes = 5 << 20
	rememberedAnswers   = 10000
	defaultEventPoll    = 300 * time.Millisecond
)

// Options carries what the server gets from its process.
type Options struct {
	Runs        Runs
	Permissions PermissionChecker
	// Pulls reads a pull request's head for /agentrun review; nil refuses
	// that command.
	Pulls  PullReader
	Logger *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// EventPollInterval is how often an SSE stream asks the run for new events.
	EventPollInterval time.Duration
	// Codec, when set, is served at /codec/: the payload codec endpoint,
	// behind a guard that checks its bearer token with the endpoint's own
	// rule (Authorized) before it runs; see routes.go.
	Codec http.Handler
}

// Server serves the approval API, webhook and pages.
type Server struct {
	cfg         Config
	runs        Runs
	permissions PermissionChecker
	pulls       PullReader
	// readPermissions answers who may read a run's repository, briefly
	// cached; nil without Permissions.
	readPermissions *permissionCache
	logger          *slog.Logger
	now             func() time.Time
	streams         *hub
	inbox           *inboxCache
	answers         *memo
	deliveries      *memo
	refusals        *keeper
	// unchecked counts the commands recorded while no worker answered for
	// the run, per person and per run (unchecked.go).
	unchecked *uncheckedCommands
	pages     *pages
	codec     http.Handler
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
	csrf, err := auth.NewCSRFGuard(cfg.Secret)
	if err != nil {
		return nil, fmt.Errorf("approval server: %w", err)
	}
	s := &Server{
		cfg:             cfg,
		runs:            opts.Runs,
		permissions:     opts.Permissions,
		pulls:           opts.Pulls,
		readPermissions: newPermissionCache(opts.Permissions, opts.Now),
		logger:          opts.Logger,
		now:             opts.Now,
		streams:         newHub(opts.Runs, opts.EventPollInterval, opts.Logger),
		inbox:           newInboxCache(opts.Runs, opts.Now),
		answers:         newMemo(rememberedAnswers),
		deliveries:      newMemo(rememberedAnswers),
		refusals:        newKeeper(opts.Runs, opts.Now),
		unchecked:       newUncheckedCommands(runsWithUnchecked),
		codec:           opts.Codec,
	}
	s.pages, err = newPages(s, csrf)
	if err != nil {
		return nil, fmt.Errorf("approval server: %w", err)
	}
	return s, nil
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
