package approvalsrv

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
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
}

// handleFormDecision serves the run page's form:
// POST /runs/{runId}/actions/{actionId}/decision. The approver is the user the
// trusted proxy names in APPROVAL_IDENTITY_HEADER; only dev mode lets a person
// type a name instead.
func (s *Server) handleFormDecision(w http.ResponseWriter, r *http.Request) {
	runID, actionID := r.PathValue("runId"), r.PathValue("actionId")
	o := s.formDecision(w, r, runID, actionID)
	if wantsJSON(r) {
		writeOutcome(w, o)
		return
	}
	target := "/runs/" + url.PathEscape(runID) + "?result=" + strconv.Itoa(o.Code)
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (s *Server) formDecision(w http.ResponseWriter, r *http.Request, runID, actionID string) outcome {
	if !hasMediaType(r, "application/x-www-form-urlencoded") {
		return refused(http.StatusUnsupportedMediaType, "Content-Type must be application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBodyBytes)
	if err := r.ParseForm(); err != nil {
		return refused(http.StatusBadRequest, "could not read the form")
	}
	if !s.csrf.valid(r, r.PostForm.Get("csrf")) {
		return refused(http.StatusForbidden, "the form has expired; reload the page")
	}
	approver := s.viewer(r).Identity
	if approver == "" && s.cfg.InsecureDev {
		approver = strings.TrimSpace(r.PostForm.Get("approver"))
	}
	if approver == "" {
		return refused(http.StatusForbidden, "no signed-in user: the server takes the approver from its login proxy")
	}
	req := DecisionRequest{
		Decision:  r.PostForm.Get("decision"),
		Approver:  approver,
		Reason:    strings.TrimSpace(r.PostForm.Get("reason")),
		RequestID: r.PostForm.Get("requestId"),
	}
	if err := req.validate(); err != nil {
		return refused(http.StatusBadRequest, err.Error())
	}
	key := "decision\x00" + runID + "\x00" + actionID + "\x00" + req.RequestID
	return s.answers.do(key, func() outcome {
		return s.decide(r.Context(), decisionInput{RunID: runID, ActionID: actionID, Request: req, Channel: channelWeb})
	})
}

func wantsJSON(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "application/json")
}
