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
	req, o, stale := s.formRequest(w, r)
	if o.OK() {
		req.ArgsHash = r.PostForm.Get("argsHash")
		// The edit box goes with every button; only an approve sends it.
		// Left as it was, it is the action's own arguments: no edit.
		if args := strings.TrimSpace(r.PostForm.Get("args")); args != "" && req.Decision == api.DecisionApprove {
			req.Args = json.RawMessage(args)
		}
		if o = validForm(req.Validate()); o.OK() {
			o = s.decideForm(r.Context(), runID, actionID, req)
		}
	}
	s.answerForm(w, r, runID, o, stale)
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
	if !hasMediaType(r, "application/x-www-form-urlencoded") {
		return Decision{}, refused(http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded"), false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBodyBytes)
	if err := r.ParseForm(); err != nil {
		return Decision{}, refused(http.StatusBadRequest, "could not read the form"), false
	}
	if !s.csrf.Valid(r, r.PostForm.Get("csrf")) {
		return Decision{}, refused(http.StatusForbidden, staleFormMessage), true
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
