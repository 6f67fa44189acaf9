package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// validateFollowUp checks a start that follows up on a run: the run's ID,
// the new message, who sends it; nothing the earlier run already decides.
func (req startRequest) validateFollowUp() error {
	if err := checkPathID("followUp", req.FollowUp); err != nil {
		return err
	}
	switch {
	case req.Repo != "" || req.PullNumber != 0 || req.Target != nil || req.Agent != "" || len(req.Approvers) > 0:
		return invalidf("a follow-up keeps its run's target, agent and approvers: send followUp, goal and userId, without repo, pullNumber, target, agent or approvers")
	case strings.TrimSpace(req.Goal) == "":
		return invalidf("missing field: goal (a follow-up's goal is its new message)")
	}
	if err := api.CheckGoal(req.Goal); err != nil {
		return invalidf("%s", err)
	}
	if err := checkName("userId", req.UserID); err != nil {
		return err
	}
	_, err := req.callbackDeadline()
	return err
}

// startFollowUp serves POST /v1/runs with followUp.
func (s *Server) startFollowUp(w http.ResponseWriter, r *http.Request, req startRequest, key string) {
	started, o := s.followUp(r.Context(), req, key)
	if !o.OK() {
		writeOutcome(w, o)
		return
	}
	w.Header().Set("Location", "/v1/runs/"+url.PathEscape(started.RunID))
	writeJSON(w, http.StatusAccepted, started)
}

// followUp starts req's follow-up: one run per user and key, as any start.
// It refuses early what the new run would (a run still open: 409; a sender
// who may not: 403); the run loads the earlier run itself and has the
// final word.
func (s *Server) followUp(ctx context.Context, req startRequest, key string) (runclient.Started, outcome) {
	runID := runclient.KeyedRunID(req.UserID, key)
	logger := s.logger.With("run", runID, "user", req.UserID, "followUp", req.FollowUp)
	in, o := s.followUpInput(ctx, req)
	if !o.OK() {
		logger.Info("follow-up refused", "code", o.Code, "reason", o.Error)
		return runclient.Started{}, o
	}
	started, err := s.runs.Start(ctx, runclient.StartRequest{
		RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in, RequestHash: runclient.RequestHash(in),
	})
	if err != nil {
		return runclient.Started{}, temporalFailure(logger, err, "start follow-up")
	}
	logger.Info("follow-up started or found", "closedStatus", started.ClosedStatus)
	return started, accepted("")
}

// followUpForm is followUp for the run page's form: its request ID is the
// key, under the earlier run, so a form sent twice starts one run.
func (s *Server) followUpForm(ctx context.Context, req startRequest, requestID string) (runclient.Started, outcome) {
	return s.followUp(ctx, req, "page-follow-up\x00"+req.FollowUp+"\x00"+requestID)
}

// conversationLister is the part of Runs that lists a conversation's runs:
// the real client has it, so the run page lists them; a Runs without it
// lists nothing.
type conversationLister interface {
	Conversation(ctx context.Context, conversationID string) ([]runclient.Listed, error)
}

// conversationRuns lists the runs of a conversation in start order, or
// none when this server's Runs cannot.
func (s *Server) conversationRuns(ctx context.Context, conversationID string) ([]runclient.Listed, error) {
	lister, ok := s.runs.(conversationLister)
	if !ok {
		return nil, nil
	}
	return lister.Conversation(ctx, conversationID)
}

// serveFollowUpForm serves the form of a finished run's page: POST
// /runs/{runId}/follow-up, behind the CSRF token like the decision form.
// Who follows up is the user the login proxy names, never a field of the
// form. A browser is sent to the new run's page.
func (s *pages) serveFollowUpForm(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	form, o, stale := s.formRequest(w, r)
	var started runclient.Started
	if o.OK() {
		req := startRequest{FollowUp: runID, Goal: strings.TrimSpace(r.PostForm.Get("goal")), UserID: form.Approver}
		if o = validForm(req.Validate()); o.OK() {
			o = validForm(checkRequestID(form.RequestID))
		}
		if o.OK() {
			started, o = s.followUpForm(r.Context(), req, form.RequestID)
		}
	}
	switch {
	case wantsJSON(r) && o.OK():
		writeJSON(w, http.StatusAccepted, started)
	case o.OK():
		http.Redirect(w, r, "/runs/"+url.PathEscape(started.RunID), http.StatusSeeOther)
	case stale:
		s.answerForm(w, r, runID, o, stale)
	case wantsJSON(r):
		writeOutcome(w, o)
	default:
		s.pageError(w, o)
	}
}

// followUpInput is the input of req's follow-up, read from the earlier
// run itself, or why it may not start.
func (s *Server) followUpInput(ctx context.Context, req startRequest) (api.RunInput, outcome) {
	snap, err := s.runs.Snapshot(ctx, req.FollowUp)
	if errors.Is(err, errRunNotFound) {
		return api.RunInput{}, refused(http.StatusNotFound, "there is no run "+req.FollowUp+" to follow up on")
	}
	if err != nil {
		return api.RunInput{}, temporalFailure(s.logger, err, "run query before a follow-up")
	}
	in := api.FollowUpInput(snap.Run, req.UserID, req.Goal)
	if req.CallbackURL != "" {
		deadline, _ := req.callbackDeadline()
		in.Callback = &api.Callback{URL: req.CallbackURL, Deadline: deadline}
	}
	if !snap.Run.Status.IsTerminal() {
		return in, refused(http.StatusConflict, fmt.Sprintf("run %s is still open (%s): follow up once it has ended", req.FollowUp, snap.Run.Status))
	}
	why, needsWriter := api.RefuseFollowUp(in, snap.Run)
	if why != "" {
		return in, refused(http.StatusForbidden, why)
	}
	if needsWriter && s.permissions != nil {
		refusal, err := s.requireWritePermission(ctx, snap.Run, req.UserID, "following up")
		if err != nil {
			s.logger.Error("follow-up sender check failed", "run", req.FollowUp, "err", err)
			return in, refused(http.StatusBadGateway, "could not check the permission to follow up; try again later")
		}
		if refusal != "" {
			return in, refused(http.StatusForbidden, refusal)
		}
	}
	return in, accepted("")
}

// conversationOf lists the runs of snap's conversation for its page, or
// none when the listing fails (the page is worth showing without it).
func (s *pages) conversationOf(ctx context.Context, snap api.RunSnapshot) []runclient.Listed {
	if snap.Run.ConversationID == "" {
		return nil
	}
	runs, err := s.conversationRuns(ctx, snap.Run.ConversationID)
	if err != nil {
		s.logger.Warn("run page without its conversation's runs", "run", snap.Run.ID, "err", err)
		return nil
	}
	return runs
}
