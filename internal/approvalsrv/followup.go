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
func (req Start) validateFollowUp() error {
	if err := CheckPathID("followUp", req.FollowUp); err != nil {
		return err
	}
	switch {
	case req.Repo != "" || req.PullNumber != 0 || req.Target != nil || req.Agent != "" || len(req.Approvers) > 0:
		return Invalidf("a follow-up keeps its run's target, agent and approvers: send followUp, goal and userId, without repo, pullNumber, target, agent or approvers")
	case strings.TrimSpace(req.Goal) == "":
		return Invalidf("missing field: goal (a follow-up's goal is its new message)")
	case len(req.Goal) > MaxGoalLength || HasControl(req.Goal):
		return Invalidf("goal must be valid UTF-8 of at most %d bytes, without control characters", MaxGoalLength)
	}
	if err := checkName("userId", req.UserID); err != nil {
		return err
	}
	_, err := req.callbackDeadline()
	return err
}

// startFollowUp serves POST /v1/runs with followUp: one run per user and
// Idempotency-Key, as any start. It refuses early what the new run would
// (a run still open: 409; a sender who may not: 403); the run loads the
// earlier run itself and has the final word.
func (s *Server) startFollowUp(w http.ResponseWriter, r *http.Request, req Start, key string) {
	runID := runclient.KeyedRunID(req.UserID, key)
	logger := s.logger.With("run", runID, "user", req.UserID, "followUp", req.FollowUp)
	in, o := s.followUpInput(r.Context(), req)
	if !o.OK() {
		logger.Info("follow-up refused", "code", o.Code, "reason", o.Error)
		writeOutcome(w, o)
		return
	}
	started, err := s.runs.Start(r.Context(), runclient.StartRequest{
		RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in, RequestHash: runclient.RequestHash(in),
	})
	if err != nil {
		writeOutcome(w, TemporalFailure(logger, err, "start follow-up"))
		return
	}
	logger.Info("follow-up started or found", "closedStatus", started.ClosedStatus)
	w.Header().Set("Location", "/v1/runs/"+url.PathEscape(started.RunID))
	writeJSON(w, http.StatusAccepted, started)
}

// followUpInput is the input of req's follow-up, read from the earlier
// run itself, or why it may not start.
func (s *Server) followUpInput(ctx context.Context, req Start) (api.RunInput, Outcome) {
	snap, err := s.runs.Snapshot(ctx, req.FollowUp)
	if errors.Is(err, ErrRunNotFound) {
		return api.RunInput{}, Refused(http.StatusNotFound, "there is no run "+req.FollowUp+" to follow up on")
	}
	if err != nil {
		return api.RunInput{}, TemporalFailure(s.logger, err, "run query before a follow-up")
	}
	in := api.FollowUpInput(snap.Run, req.UserID, req.Goal)
	if req.CallbackURL != "" {
		deadline, _ := req.callbackDeadline()
		in.Callback = &api.Callback{URL: req.CallbackURL, Deadline: deadline}
	}
	if !snap.Run.Status.IsTerminal() {
		return in, Refused(http.StatusConflict, fmt.Sprintf("run %s is still open (%s): follow up once it has ended", req.FollowUp, snap.Run.Status))
	}
	why, needsWriter := api.RefuseFollowUp(in, snap.Run)
	if why != "" {
		return in, Refused(http.StatusForbidden, why)
	}
	if needsWriter && s.permissions != nil {
		refusal, err := s.requireWritePermission(ctx, snap.Run, req.UserID)
		if err != nil {
			s.logger.Error("follow-up sender check failed", "run", req.FollowUp, "err", err)
			return in, Refused(http.StatusBadGateway, "could not check the permission to follow up; try again later")
		}
		if refusal != "" {
			return in, Refused(http.StatusForbidden, strings.Replace(refusal, "approving needs write", "following up needs write", 1))
		}
	}
	return in, Accepted("")
}
