package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentrun/agentrun/internal/approvalsrv/answer"
	"github.com/agentrun/agentrun/internal/approvalsrv/request"
)

// formNotices are what a browser without script sees after its form post,
// keyed by the status code; the page never echoes caller-supplied text.
var formNotices = map[string]string{
	"202": "Your decision was sent to the run.",
	"400": "The form was incomplete: a rejection needs a reason.",
	"403": "You may not decide this action.",
	"404": "This action is not part of the run.",
	"409": "The action was already decided or has expired.",
	"502": "Your permission could not be checked; try again.",
	"503": "The run could not be reached; try again.",
	// A form from before a restart (dev mode's CSRF key is random) is not a
	// permission problem; saying 403's text would mislead.
	resultStale: staleFormMessage,
}

const (
	resultStale      = "stale"
	staleFormMessage = "This page is out of date; reload it and decide again."
)

// Form serves the run page's form:
// POST /runs/{runId}/actions/{actionId}/decision. The approver is the user the
// trusted proxy names in APPROVAL_IDENTITY_HEADER, as the page middleware
// authenticated it; only dev mode without that user lets a person type a name.
func (s *Pages) Form(w http.ResponseWriter, r *http.Request) {
	runID, actionID := r.PathValue("runId"), r.PathValue("actionId")
	o, stale := s.formDecision(w, r, runID, actionID)
	if answer.WantsJSON(r) {
		answer.Write(w, o)
		return
	}
	result := strconv.Itoa(o.Code)
	if stale {
		result = resultStale
	}
	target := "/runs/" + url.PathEscape(runID) + "?result=" + result
	http.Redirect(w, r, target, http.StatusSeeOther)
}

// formDecision also reports whether the form was stale (its CSRF token no
// longer checks out), which the page words differently from a refusal.
func (s *Pages) formDecision(w http.ResponseWriter, r *http.Request, runID, actionID string) (answer.Outcome, bool) {
	if !answer.HasMediaType(r, "application/x-www-form-urlencoded") {
		return answer.Refused(http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded"), false
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBodyBytes)
	if err := r.ParseForm(); err != nil {
		return answer.Refused(http.StatusBadRequest, "could not read the form"), false
	}
	if !s.opts.CSRF.Valid(r, r.PostForm.Get("csrf")) {
		return answer.Refused(http.StatusForbidden, staleFormMessage), true
	}
	approver := s.viewer(r).Identity
	if approver == "" && s.opts.InsecureDev && s.opts.IdentityHeader == "" {
		approver = strings.TrimSpace(r.PostForm.Get("approver"))
	}
	if approver == "" {
		return answer.Refused(http.StatusForbidden, "no signed-in user: the server takes the approver from its login proxy"), false
	}
	req := request.Decision{
		Decision:  r.PostForm.Get("decision"),
		Approver:  approver,
		Reason:    strings.TrimSpace(r.PostForm.Get("reason")),
		RequestID: r.PostForm.Get("requestId"),
	}
	if err := req.Validate(); err != nil {
		var bad *request.Invalid
		if !errors.As(err, &bad) {
			return answer.Refused(http.StatusBadRequest, "bad request"), false
		}
		return answer.Refused(http.StatusBadRequest, bad.Problem), false
	}
	return s.opts.Decide(r.Context(), runID, actionID, req), false
}
