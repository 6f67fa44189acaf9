package approvalsrv

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// formNotices are what a browser without script sees after its form post,
// keyed by the status code; the page never echoes caller-supplied text.
var formNotices = map[string]string{
	"202": "Your decision was sent to the run.",
	// The run page says the run's last known state beside it.
	resultRecorded: "Recorded; the run will act on it when a worker picks it up.",
	"400":          "The form was incomplete or invalid: a rejection needs a reason, feedback needs text, edited arguments must be one JSON object.",
	"403":          "You may not decide this action.",
	"404":          "This action is not part of the run.",
	"422":          "This run's agent takes one decision per action, or an action is not part of the run.",
	"409":          "The action was already decided or has expired.",
	"502":          "Your permission could not be checked; try again.",
	"503":          "The run could not be reached; try again.",
	// A form from before a restart (dev mode's CSRF key is random) is not a
	// permission problem; saying 403's text would mislead.
	resultStale: staleFormMessage,
}

const (
	resultStale      = "stale"
	resultRecorded   = "recorded"
	staleFormMessage = "This page is out of date; reload it and decide again."
)

// serveDecisionForm serves the run page's form:
// POST /runs/{runId}/actions/{actionId}/decision. The approver is the user the
// trusted proxy names in APPROVAL_IDENTITY_HEADER, as the page middleware
// authenticated it; only dev mode without that user lets a person type a name.
func (s *pages) serveDecisionForm(w http.ResponseWriter, r *http.Request) {
	runID, actionID := r.PathValue("runId"), r.PathValue("actionId")
	if o, _ := s.readForm(w, r); o.OK() && r.PostForm.Get("decision") == decisionChanges {
		s.serveEditChanges(w, r, actionID)
		return
	}
	req, o, stale := s.formRequest(w, r)
	if o.OK() {
		req.ArgsHash = r.PostForm.Get("argsHash")
		// The edit box goes with every button; only an approve sends it.
		// Left as it was, it is the action's own arguments: no edit.
		if req.Decision == api.DecisionApprove {
			args, problem := editedArgs(r.PostForm)
			if problem != "" {
				s.answerEdit(w, r, &typedEdit{ActionID: actionID, Values: r.PostForm, Error: "Not sent: " + problem + "."})
				return
			}
			if len(args) > 0 {
				req.Args = args
			}
		}
		if o = validForm(req.Validate()); o.OK() {
			o = s.decideForm(r.Context(), runID, actionID, req)
		}
	}
	s.answerForm(w, r, runID, o, stale)
}

// serveEditChanges answers the edit form's "Show changes": the edit's
// changes against the proposal the form started from. A script gets the
// changes alone (?part=changes); a browser without script, the run page
// with the form as the person typed it.
func (s *pages) serveEditChanges(w http.ResponseWriter, r *http.Request, actionID string) {
	typed := &typedEdit{ActionID: actionID, Values: r.PostForm, ShowChanges: true}
	args, problem := editedArgs(r.PostForm)
	if problem != "" {
		typed.Error = problem + "."
	} else if len(args) > 0 {
		typed.Changes = argsChanges(json.RawMessage(r.PostForm.Get(argsBaseField)), args)
	}
	if r.URL.Query().Get("part") == "changes" {
		s.render(w, http.StatusOK, "edit-changes", typed.changesView())
		return
	}
	s.answerEdit(w, r, typed)
}

// answerEdit answers an edit form whose fields are not arguments, or that
// asked for its changes: a script gets the error as JSON (its form stays
// as typed); a browser without script gets the run page again with the
// form as the person typed it, so that nothing they typed is lost.
func (s *pages) answerEdit(w http.ResponseWriter, r *http.Request, typed *typedEdit) {
	code := http.StatusOK
	if typed.Error != "" && !typed.ShowChanges {
		code = http.StatusBadRequest
		if wantsJSON(r) {
			writeOutcome(w, refused(code, strings.TrimSuffix(strings.TrimPrefix(typed.Error, "Not sent: "), ".")))
			return
		}
	}
	s.serveRun(w, r, "run.html", code, typed)
}

// serveBatchForm serves the run page's "approve all" form:
// POST /runs/{runId}/decision, with an actionId and an argsHash field for
// each action, in the same order.
func (s *pages) serveBatchForm(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	req, o, stale := s.formRequest(w, r)
	if o.OK() {
		batch := Batch{Decision: req}
		ids, hashes := r.PostForm["actionId"], r.PostForm["argsHash"]
		if len(ids) != len(hashes) {
			o = refused(http.StatusBadRequest, "each actionId needs its argsHash")
		}
		for i := 0; o.OK() && i < len(ids); i++ {
			batch.Actions = append(batch.Actions, api.ActionRef{ActionID: ids[i], ArgsHash: hashes[i]})
		}
		if o.OK() {
			o = validForm(batch.Validate())
		}
		if o.OK() {
			o = s.decideBatchForm(r.Context(), runID, batch)
		}
	}
	s.answerForm(w, r, runID, o, stale)
}

// answerForm answers a script with JSON, and a browser without script with
// the run page again, carrying a notice. The server answers its own
// refusals of a form through it, so they look like the form's own.
func (s *pages) answerForm(w http.ResponseWriter, r *http.Request, runID string, o outcome, stale bool) {
	if wantsJSON(r) {
		writeOutcome(w, o)
		return
	}
	result := strconv.Itoa(o.Code)
	switch {
	case stale:
		result = resultStale
	case o.recorded():
		result = resultRecorded
	}
	target := "/runs/" + url.PathEscape(runID) + "?result=" + result
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// formRequest reads what every decision form posts (CSRF token, approver,
// decision, reason, requestId); it also reports whether the form was stale
// (its CSRF token no longer checks out), which the page words differently
// from a refusal.
func (s *pages) formRequest(w http.ResponseWriter, r *http.Request) (Decision, outcome, bool) {
	if o, stale := s.readForm(w, r); !o.OK() {
		return Decision{}, o, stale
	}
	approver := s.viewer(r).Identity
	if approver == "" && s.cfg.InsecureDev && s.cfg.IdentityHeader == "" {
		approver = strings.TrimSpace(r.PostForm.Get("approver"))
	}
	if approver == "" {
		return Decision{}, refused(http.StatusForbidden, "no signed-in user: the server takes the approver from its login proxy"), false
	}
	return Decision{
		Decision:  r.PostForm.Get("decision"),
		Approver:  approver,
		Reason:    strings.TrimSpace(r.PostForm.Get("reason")),
		RequestID: r.PostForm.Get("requestId"),
	}, accepted(""), false
}

// readForm reads a form post and checks its CSRF token; it reports
// whether the form was stale. Reading it again reads nothing more.
func (s *pages) readForm(w http.ResponseWriter, r *http.Request) (outcome, bool) {
	if !hasMediaType(r, "application/x-www-form-urlencoded") {
		return refused(http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded"), false
	}
	if r.PostForm == nil {
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBodyBytes)
		if err := r.ParseForm(); err != nil {
			return refused(http.StatusBadRequest, "could not read the form"), false
		}
	}
	if !s.csrf.Valid(r, r.PostForm.Get("csrf")) {
		return refused(http.StatusForbidden, staleFormMessage), true
	}
	return accepted(""), false
}

// validForm is a validation error as the form's answer.
func validForm(err error) outcome {
	if err == nil {
		return accepted("")
	}
	var bad *invalidRequest
	if !errors.As(err, &bad) {
		return refused(http.StatusBadRequest, "bad request")
	}
	return refused(http.StatusBadRequest, bad.Problem)
}
