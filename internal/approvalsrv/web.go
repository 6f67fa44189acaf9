package approvalsrv

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/answer"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"
	"github.com/agentrun/agentrun/internal/approvalsrv/refusal"
)

//go:embed web/templates/*.html web/static/*
var webFiles embed.FS

type pageTemplates struct {
	set *template.Template
}

func parsePageTemplates() (*pageTemplates, error) {
	set, err := template.New("pages").Funcs(template.FuncMap{
		"statusText": statusText,
		"duration":   formatDuration,
		"rfc3339":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"clock":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"excerpt":    excerpt,
		"stepTitle":  api.AgentStep.Title,
	}).ParseFS(webFiles, "web/templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse page templates: %w", err)
	}
	return &pageTemplates{set: set}, nil
}

// render executes into a buffer first so that a template error becomes a
// clean 500 instead of half a page.
func (p *pageTemplates) render(w http.ResponseWriter, code int, name string, data any) error {
	var buf bytes.Buffer
	if err := p.set.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = buf.WriteTo(w)
	return nil
}

func staticHandler() http.Handler {
	static, err := fs.Sub(webFiles, "web/static")
	if err != nil {
		panic(fmt.Sprintf("embedded static files: %v", err)) // the embed pattern guarantees the directory
	}
	return http.StripPrefix("/static/", http.FileServerFS(static))
}

// handleInboxPage serves GET /: the pending approvals.
func (s *Server) handleInboxPage(w http.ResponseWriter, r *http.Request) {
	inbox, err := s.inbox.list(r.Context())
	if err != nil {
		s.errorPage(w, answer.TemporalFailure(s.logger, err, "inbox page"))
		return
	}
	data := map[string]any{"Approvals": inbox, "Title": "Pending approvals"}
	s.render(w, http.StatusOK, "inbox.html", data)
}

// handleRunPage serves GET /runs/{runId}.
func (s *Server) handleRunPage(w http.ResponseWriter, r *http.Request) {
	s.serveRun(w, r, "run.html")
}

// handleRunPanel serves GET /runs/{runId}/panel: the live part of the run
// page, fetched by the page's script whenever an event arrives.
func (s *Server) handleRunPanel(w http.ResponseWriter, r *http.Request) {
	s.serveRun(w, r, "panel")
}

func (s *Server) serveRun(w http.ResponseWriter, r *http.Request, template string) {
	runID := r.PathValue("runId")
	snap, err := s.runs.Snapshot(r.Context(), runID)
	if err != nil {
		s.errorPage(w, answer.TemporalFailure(s.logger.With("run", runID), err, "run page"))
		return
	}
	events, err := s.runs.Events(r.Context(), runID, 0)
	if err != nil {
		// The page is still worth showing with this process's refusals only.
		s.logger.Warn("run page without the run's events", "run", runID, "err", err)
	}
	view := s.runView(w, r, runID, snap, events)
	s.render(w, http.StatusOK, template, view)
}

func (s *Server) errorPage(w http.ResponseWriter, o answer.Outcome) {
	data := map[string]any{"Title": http.StatusText(o.Code), "Message": o.Error, "Code": o.Code}
	s.render(w, o.Code, "error.html", data)
}

// render answers a plain 500 when a template fails: its error names
// templates and fields, which are for the log only.
func (s *Server) render(w http.ResponseWriter, code int, name string, data any) {
	if err := s.pages.render(w, code, name, data); err != nil {
		s.logger.Error("page", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

type runView struct {
	RunID     string
	Title     string
	Snap      api.RunSnapshot
	Status    string
	Ended     bool
	RunFailed bool
	// ShowLabel hides a label that only repeats the status ("Done Done").
	ShowLabel bool
	// ShowOutcome is false only for a run from before outcomes, whose
	// snapshot has none.
	ShowOutcome bool
	Steps       []api.AgentStep
	Action      *actionView
	Refusals    []refusal.Refusal
	Viewer      viewer
	CSRF        string
	RequestID   string
	Notice      string
}

type actionView struct {
	api.PendingAction
	// Key changes whenever the action's form must be redrawn.
	Key       string
	Open      bool
	Approvers []string
}

type viewer struct {
	Identity    string
	TypeName    bool
	HeaderName  string
	SignInFirst bool
}

func (s *Server) runView(w http.ResponseWriter, r *http.Request, runID string, snap api.RunSnapshot, events []api.Event) runView {
	steps := append([]api.AgentStep(nil), snap.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Sequence < steps[j].Sequence })
	return runView{
		RunID:       runID,
		Title:       "Run " + runID,
		Snap:        snap,
		Status:      statusText(snap.Run.Status),
		Ended:       snap.Run.Status.IsTerminal(),
		RunFailed:   snap.Run.Status == api.RunFailed,
		ShowLabel:   snap.Label != "" && !strings.EqualFold(snap.Label, statusText(snap.Run.Status)),
		ShowOutcome: snap.Outcome.Summary != "" || len(snap.Outcome.Posted)+len(snap.Outcome.Declined)+len(snap.Outcome.Failed) > 0,
		Steps:       steps,
		Action:      s.actionView(snap),
		Refusals:    s.pageRefusals(runID, snap, events),
		Viewer:      s.viewer(r),
		CSRF:        s.csrf.Token(w, r),
		RequestID:   "web-" + auth.RandomToken(),
		Notice:      s.formNotice(r.URL.Query().Get("result"), snap),
	}
}

// formNotice is what a browser without script sees after its form post. A
// 409 says what became of the action, read from the run, not from the
// request: the page never echoes caller-supplied text.
func (s *Server) formNotice(result string, snap api.RunSnapshot) string {
	if result == "409" && snap.PendingAction != nil {
		if o := s.checkActionOpen(snap.PendingAction); !o.OK() {
			return "Not sent: " + o.Error + "."
		}
	}
	return formNotices[result]
}

func (s *Server) actionView(snap api.RunSnapshot) *actionView {
	a := snap.PendingAction
	if a == nil {
		return nil
	}
	approvers := a.Approvers
	if len(approvers) == 0 {
		approvers = snap.Run.Approvers
	}
	open := a.State == api.ActionWaiting && s.now().Before(a.ExpiresAt) && !snap.Run.Status.IsTerminal()
	return &actionView{
		PendingAction: *a,
		Key:           fmt.Sprintf("%s/%s/%t", a.ID, a.State, open),
		Open:          open,
		Approvers:     approvers,
	}
}

func (s *Server) viewer(r *http.Request) viewer {
	// Only the page middleware's authenticated identity: the header itself
	// may come from anyone.
	v := viewer{HeaderName: s.cfg.IdentityHeader, Identity: auth.IdentityFrom(r.Context())}
	// With a login proxy configured, its user is the only approver, dev mode
	// or not.
	v.TypeName = v.Identity == "" && s.cfg.InsecureDev && s.cfg.IdentityHeader == ""
	v.SignInFirst = v.Identity == "" && !v.TypeName
	return v
}

func statusText(status api.RunStatus) string {
	switch status {
	case api.RunRunning:
		return "Running"
	case api.RunWaitingForUser:
		return "Waiting for approval"
	case api.RunReconciling:
		return "Reconciling"
	case api.RunCompleted:
		return "Done"
	case api.RunFailed:
		return "Failed"
	case api.RunCancelled:
		return "Cancelled"
	}
	return string(status)
}

func formatDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return fmt.Sprintf("%d ms", ms)
	}
	return d.Round(100 * time.Millisecond).String()
}

func excerpt(s string) string {
	const max = 280
	if len(s) <= max {
		return s
	}
	return s[:runeBoundary(s, max)] + "…"
}

func runeBoundary(s string, i int) int {
	for i > 0 && i < len(s) && s[i]&0xC0 == 0x80 {
		i--
	}
	return i
}
