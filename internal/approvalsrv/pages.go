// This file is the approval server's HTML: the inbox, the run page and
// its live panel, the run history, and the run page's decision form. It
// renders what the server hands it; the server's route table guards it.

package approvalsrv

import (
	"bytes"
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/approvalsrv/auth"

	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

//go:embed web/templates/*.html web/static/*
var webFiles embed.FS

// excerptLength bounds a preview in the inbox.
const excerptLength = 280

// maxFormBodyBytes bounds a form post.
const maxFormBodyBytes = 64 << 10

// pages serves the HTML routes. It is the server's own: its handlers read
// runs and take decisions through the server as any other channel does.
type pages struct {
	*Server
	templates *template.Template
	csrf      *auth.CSRFGuard
}

func newPages(s *Server, csrf *auth.CSRFGuard) (*pages, error) {
	set, err := parseTemplates()
	if err != nil {
		return nil, err
	}
	return &pages{Server: s, templates: set, csrf: csrf}, nil
}

func parseTemplates() (*template.Template, error) {
	set, err := template.New("pages").Funcs(template.FuncMap{
		"statusText": statusText,
		"duration":   formatDuration,
		"rfc3339":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"clock":      func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") },
		"excerpt":    func(s string) string { return clip(s, excerptLength) },
		// short is a time in a table: the day and the minute, UTC.
		"short":           func(t time.Time) string { return t.UTC().Format("Jan 2 15:04") },
		"waiting":         func() api.Standing { return api.StandingOf(api.RunWaitingForUser, "") },
		"stepTitle":       runview.StepTitle,
		"made":            runview.Made,
		"actionDo":        func(w *api.ToolWords, tool string) string { return api.WordsOf(w, tool).Do() },
		"readable":        readable,
		"readableExcerpt": readableExcerpt,
		"inboxTitle":      inboxTitle,
		"declined": func(d api.DeclinedOutcome, cancel *api.Cancellation) string {
			w := api.DeclinedWords(d, cancel)
			return strings.ToUpper(w[:1]) + w[1:]
		},
		// A decline from before the tools' words says "an action".
		"aNoun": func(noun string) string { return api.WithArticle(cmp.Or(noun, "action")) },
	}).ParseFS(webFiles, "web/templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("parse page templates: %w", err)
	}
	return set, nil
}

// execute renders into a buffer first so that a template error becomes a
// clean 500 instead of half a page.
func execute(set *template.Template, w http.ResponseWriter, code int, name string, data any) error {
	var buf bytes.Buffer
	if err := set.ExecuteTemplate(&buf, name, data); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = buf.WriteTo(w)
	return nil
}

// Static serves the embedded scripts and styles under /static/.
func staticFiles() http.Handler {
	static, err := fs.Sub(webFiles, "web/static")
	if err != nil {
		panic(fmt.Sprintf("embedded static files: %v", err)) // the embed pattern guarantees the directory
	}
	return http.StripPrefix("/static/", http.FileServerFS(static))
}

// serveInbox serves GET /: the pending approvals.
func (s *pages) serveInbox(w http.ResponseWriter, r *http.Request) {
	inbox, err := s.pageInbox(r.Context())
	if err != nil {
		s.pageError(w, temporalFailure(s.logger, err, "inbox page"))
		return
	}
	agent := r.URL.Query().Get("agent")
	agents := inboxAgents(inbox)
	if agent != "" && !slices.Contains(agents, agent) {
		agent = "" // the filter is not echoed unless it names an agent listed
	}
	if agent != "" {
		inbox = slices.DeleteFunc(slices.Clone(inbox), func(a runclient.PendingApproval) bool { return a.Agent != agent })
	}
	data := map[string]any{"Approvals": inbox, "Title": "Pending approvals", "Holds": s.holdsVisibleTo(r.Context(), auth.IdentityFrom(r.Context())),
		"Agents": agents, "Agent": agent}
	s.render(w, http.StatusOK, "inbox.html", data)
}

// inboxAgents are the agents of the waiting actions, sorted, for the
// inbox's filter.
func inboxAgents(inbox []runclient.PendingApproval) []string {
	var agents []string
	for _, a := range inbox {
		if a.Agent != "" && !slices.Contains(agents, a.Agent) {
			agents = append(agents, a.Agent)
		}
	}
	sort.Strings(agents)
	return agents
}

// serveRunPage serves GET /runs/{runId}.
func (s *pages) serveRunPage(w http.ResponseWriter, r *http.Request) {
	s.serveRun(w, r, "run.html", http.StatusOK, nil)
}

// servePanel serves GET /runs/{runId}/panel: the live part of the run
// page, fetched by the page's script whenever an event arrives.
func (s *pages) servePanel(w http.ResponseWriter, r *http.Request) {
	s.serveRun(w, r, "panel", http.StatusOK, nil)
}

// serveRun renders the run page (or its panel) with code; typed, when not
// nil, is an edit form posted without script, which comes back as typed.
func (s *pages) serveRun(w http.ResponseWriter, r *http.Request, template string, code int, typed *typedEdit) {
	runID := r.PathValue("runId")
	reach, err := s.reach(r.Context(), runID)
	if err != nil {
		s.pageError(w, temporalFailure(s.logger.With("run", runID), err, "run page"))
		return
	}
	snap := reach.Snapshot
	if !reach.Live {
		// The run's last known state, with its forms: a decision or a
		// cancel is recorded for the next worker. Events, writing and the
		// conversation need a worker to answer; they wait for one.
		view := s.runView(w, r, runID, snap, nil, typed)
		view.Notice = strings.TrimSpace(noWorkerNotice + " " + view.Notice)
		s.render(w, code, template, view)
		return
	}
	events, err := s.runs.Events(r.Context(), runID, 0)
	if err != nil {
		// The page is still worth showing with this process's refusals only.
		s.logger.Warn("run page without the run's events", "run", runID, "err", err)
	}
	view := s.runView(w, r, runID, snap, events, typed)
	if !snap.Run.Status.IsTerminal() {
		view.Notice = strings.TrimSpace(s.holdNotice(r.Context(), snap.Run) + " " + view.Notice)
	}
	view.Writing = s.modelWriting(r.Context(), runID, snap)
	if template == "run.html" {
		view.Conversation = s.conversationOf(r.Context(), snap)
	}
	s.render(w, code, template, view)
}

// noWorkerNotice heads the page of a run no worker answers for.
const noWorkerNotice = "No worker is answering for this run: this is its last known state. " +
	"A decision or a cancel made here is recorded; the run will act on it when a worker picks it up."

// pageError answers o as a page: its code and its message, which is for people.
func (s *pages) pageError(w http.ResponseWriter, o outcome) {
	data := map[string]any{"Title": http.StatusText(o.Code), "Message": o.Error, "Code": o.Code}
	s.render(w, o.Code, "error.html", data)
}

// render answers a plain 500 when a template fails: its error names
// templates and fields, which are for the log only.
func (s *pages) render(w http.ResponseWriter, code int, name string, data any) {
	if err := execute(s.templates, w, code, name, data); err != nil {
		s.logger.Error("page", "template", name, "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
	}
}

type runView struct {
	RunID string
	Title string
	Snap  api.RunSnapshot
	// Status and StatusKey are the run's api.StandingOf: the badge's words
	// and colour.
	Status    string
	StatusKey string
	// StatusDetail says why, in one line: the tool that failed, who
	// rejected or cancelled, and their reason.
	StatusDetail string
	Ended        bool
	RunFailed    bool
	// ShowLabel hides a label that only repeats the status ("Done Done")
	// or contradicts it ("Partial … Done").
	ShowLabel bool
	// ShowOutcome is false only for a run from before outcomes, whose
	// snapshot has none.
	ShowOutcome bool
	Steps       []api.AgentStep
	// Actions are the run's waiting actions, each with its own form, or
	// else its newest action; Batch is the "approve all" form.
	Actions  []actionView
	Batch    *batchView
	Refusals []refusal
	Viewer   viewer
	Notice   string
	// Writing is what the model is writing now (writing.go).
	Writing string
	// Cancel is the cancel button's form, while the run is open.
	Cancel *formView
	// FollowUp is the follow-up form, once the run has ended;
	// Conversation the runs of its conversation, in start order.
	FollowUp     *formView
	Conversation []runclient.Listed
}

type viewer struct {
	Identity    string
	TypeName    bool
	HeaderName  string
	SignInFirst bool
}

func (s *pages) runView(w http.ResponseWriter, r *http.Request, runID string, snap api.RunSnapshot, events []api.Event, typed *typedEdit) runView {
	steps := append([]api.AgentStep(nil), snap.Steps...)
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Sequence < steps[j].Sequence })
	standing := api.StandingOfRun(snap)
	view := runView{
		StatusDetail: standing.Detail,
		RunID:        runID,
		Title:        "Run " + runID,
		Snap:         snap,
		Status:       standing.Words,
		StatusKey:    standing.Key,
		Ended:        snap.Run.Status.IsTerminal(),
		RunFailed:    snap.Run.Status == api.RunFailed,
		// An ended run's "Done" label would contradict a standing such as
		// "Partial" or "Rejected by bob"; the standing says how it ended.
		ShowLabel: snap.Label != "" && !strings.EqualFold(snap.Label, standing.Words) &&
			!(snap.Label == api.LabelDone && snap.Run.Status.IsTerminal()),
		ShowOutcome: snap.Outcome.Summary != "" || len(snap.Outcome.Posted)+len(snap.Outcome.Declined)+len(snap.Outcome.Failed) > 0,
		Steps:       steps,
		Refusals:    s.pageRefusals(runID, snap, events),
		Viewer:      s.viewer(r),
		Notice:      s.formNotice(r.URL.Query().Get("result"), snap),
	}
	form := formView{RunID: runID, CSRF: s.csrf.Token(w, r), RequestID: "web-" + auth.RandomToken(), Viewer: view.Viewer, typed: typed}
	view.Actions, view.Batch = s.actionViews(snap, form)
	if !view.Ended {
		view.Cancel = &formView{RunID: runID, CSRF: form.CSRF, RequestID: "cancel-" + auth.RandomToken(), Viewer: view.Viewer, Suffix: "-cancel"}
	} else {
		view.FollowUp = &formView{RunID: runID, CSRF: form.CSRF, RequestID: "follow-up-" + auth.RandomToken(), Viewer: view.Viewer, Suffix: "-follow-up"}
	}
	return view
}

// formNotice is what a browser without script sees after its form post. A
// 409 says that the decision changed nothing and what became of the
// action, read from the run, not from the request: the page never echoes
// caller-supplied text. "Not sent" would read as the action's fate, when an
// approval replayed after the action was done refers to the decision.
func (s *pages) formNotice(result string, snap api.RunSnapshot) string {
	if result == "409" && snap.PendingAction != nil {
		if o := s.checkActionOpen(snap.PendingAction); !o.OK() {
			return "Your decision changed nothing: " + o.Error + "." + doneAs(snap, snap.PendingAction.StepID)
		}
	}
	return formNotices[result]
}

// doneAs says what the run made of an action's step once it is done:
// " Done: sent message M-3.", or nothing while it is not.
func doneAs(snap api.RunSnapshot, stepID string) string {
	for _, st := range snap.Steps {
		if st.ID == stepID && st.Type == api.StepToolCall && st.Status == api.StepSucceeded {
			return " Done: " + runview.StepTitle(st) + "."
		}
	}
	return ""
}

func (s *pages) viewer(r *http.Request) viewer {
	// Only the page middleware's authenticated identity: the header itself
	// may come from anyone.
	v := viewer{HeaderName: s.cfg.IdentityHeader, Identity: auth.IdentityFrom(r.Context())}
	// With a login proxy configured, its user is the only approver, dev mode
	// or not.
	v.TypeName = v.Identity == "" && s.cfg.InsecureDev && s.cfg.IdentityHeader == ""
	v.SignInFirst = v.Identity == "" && !v.TypeName
	return v
}

// statusText is a run status's words, for the history's filters; a run's
// own badge shows its api.StandingOf.
func statusText(status api.RunStatus) string { return api.StandingOf(status, "").Words }

func formatDuration(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	if d < time.Second {
		return fmt.Sprintf("%d ms", ms)
	}
	return d.Round(100 * time.Millisecond).String()
}
