package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// The stop switch on the signed API: POST /v1/holds places a hold, POST
// /v1/holds/release releases one, GET /v1/holds lists them and their audit.
// Only the signed API may: a hold stops every matching run of every
// requester, so it is an operator's act, not a page's or a comment's.

// holdRequest is the body of POST /v1/holds and POST /v1/holds/release.
type holdRequest struct {
	Selector api.HoldSelector `json:"selector"`
	By       string           `json:"by"`
	Reason   string           `json:"reason"`
	// All, on a release only, lifts every hold on the selector, others'
	// too; without it a release lifts the sender's own.
	All bool `json:"all,omitempty"`
	// RequestID makes a repeat (a retry, or a captured request replayed
	// within the signature's window) answer as the first did and change
	// nothing.
	RequestID string `json:"requestId"`
}

func parseHold(body []byte) (holdRequest, error) { return parse[holdRequest](body) }

// Validate checks who, why, what a hold names and the request's ID.
func (req holdRequest) Validate() error {
	if err := checkName("by", req.By); err != nil {
		return err
	}
	if strings.TrimSpace(req.Reason) == "" {
		return invalidf("missing field: reason (a hold must say why)")
	}
	if len(req.Reason) > api.MaxHoldReasonBytes || hasControl(strings.ReplaceAll(req.Reason, "\n", " ")) {
		return invalidf("reason must be valid UTF-8 of at most %d bytes, without control characters", api.MaxHoldReasonBytes)
	}
	for _, v := range []string{req.Selector.Agent, req.Selector.Target, req.Selector.Tool} {
		if hasControl(v) {
			return invalidf("selector must be without control characters")
		}
	}
	if err := req.Selector.Validate(); err != nil {
		return invalidf("selector: %s", err.Error())
	}
	return checkRequestID(req.RequestID)
}

func (req holdRequest) signal() api.HoldSignal {
	return api.HoldSignal{
		Selector: req.Selector, By: strings.TrimSpace(req.By), Reason: strings.TrimSpace(req.Reason), Channel: channelAPI,
		All: req.All, RequestID: req.RequestID,
	}
}

// handleHold serves POST /v1/holds.
func (s *Server) handleHold(w http.ResponseWriter, r *http.Request) {
	s.serveHold(w, r, api.UpdateHold)
}

// handleRelease serves POST /v1/holds/release.
func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request) {
	s.serveHold(w, r, api.UpdateRelease)
}

func (s *Server) serveHold(w http.ResponseWriter, r *http.Request, update string) {
	req, ok := parseSigned(s, w, r, parseHold)
	if !ok {
		return
	}
	if req.All && update == api.UpdateHold {
		writeOutcome(w, refused(http.StatusBadRequest, "all goes with a release, not a hold"))
		return
	}
	// One memo rule with decisions and cancels: the same sender's request
	// ID on the same change is the same request.
	key := update + "\x00" + channelAPI + "\x00" + strings.ToLower(req.By) + "\x00" + req.RequestID
	body := fmt.Sprintf("%+v\x00%s\x00%t", req.Selector, req.Reason, req.All)
	writeOutcome(w, s.answers.Do(key, body, func() outcome { return s.changeHolds(r.Context(), update, req.signal()) }))
}

// changeHolds sends the hold or release and answers what the holds
// workflow did: 200 when applied, 409 when refused or when there was
// nothing to release, with the outcome in "state".
func (s *Server) changeHolds(ctx context.Context, update string, sig api.HoldSignal) outcome {
	logger := s.logger.With("by", sig.By, "selector", sig.Selector.String(), "requestId", sig.RequestID)
	send := s.runs.Hold
	if update == api.UpdateRelease {
		send = s.runs.Release
	}
	answer, err := send(ctx, s.cfg.TaskQueue, sig)
	if errors.Is(err, runclient.ErrHoldUnconfirmed) {
		logger.Warn("holds change not confirmed", "update", update, "err", err)
		return refused(http.StatusServiceUnavailable, "not confirmed: the holds workflow did not answer in time; list the holds (GET /v1/holds) before trying again")
	}
	if err != nil {
		return temporalFailure(logger, err, "holds update")
	}
	logger.Info("holds change answered", "update", update, "outcome", answer.Outcome, "note", answer.Note)
	if !answer.Changed() {
		o := refused(http.StatusConflict, answer.Note)
		o.State = answer.Outcome
		return o
	}
	status := "held " + answer.Selector.String()
	if answer.Outcome == api.HoldOutcomeReleased {
		status = "released " + answer.Selector.String()
	}
	if len(answer.Others) > 0 {
		names := make([]string, len(answer.Others))
		for i, o := range answer.Others {
			names[i] = o.By
		}
		status += "; also held by " + strings.Join(names, ", ")
	}
	return outcome{Code: http.StatusOK, Status: status, State: answer.Outcome}
}

// handleListHolds serves GET /v1/holds: the active holds and the audit log.
func (s *Server) handleListHolds(w http.ResponseWriter, r *http.Request) {
	view, err := s.runs.Holds(r.Context(), s.cfg.TaskQueue)
	if err != nil {
		writeOutcome(w, temporalFailure(s.logger, err, "holds query"))
		return
	}
	writeJSON(w, http.StatusOK, view)
}

// activeHolds are the holds the pages show. A page is still worth showing
// without them: a failed read is logged, not answered.
func (s *Server) activeHolds(ctx context.Context) []api.Hold {
	view, err := s.runs.Holds(ctx, s.cfg.TaskQueue)
	if err != nil {
		s.logger.Warn("page without the holds", "err", err)
		return nil
	}
	return view.Active
}

// holdsVisibleTo are the active holds the page person login may see: a
// hold on a repository or one of its pull requests only to someone who
// may read that repository (its reason may name what is private there),
// as the inbox shows only the runs they may read; a hold on an agent, a
// tool or a target of another kind to every signed-in person.
func (s *Server) holdsVisibleTo(ctx context.Context, login string) []api.Hold {
	var shown []api.Hold
	for _, h := range s.activeHolds(ctx) {
		if repo := h.Selector.Repository(); repo != "" {
			ok, err := s.mayRead(ctx, login, runReaders{repo: repo})
			if err != nil {
				s.logger.Warn("hold left off the page: read permission check failed", "viewer", login, "repo", repo, "err", err)
			}
			if !ok {
				continue
			}
		}
		shown = append(shown, h)
	}
	return shown
}

// holdNotice is the run page's line about a hold on the run's agent or
// target (a hold on a tool shows on the step it stops, by its label), or "".
func (s *Server) holdNotice(ctx context.Context, run api.Run) string {
	check := api.HoldCheck{RunID: run.ID, Agent: run.Agent, Targets: []string{run.TargetName()}}
	hold := api.HoldsView{Active: s.activeHolds(ctx)}.Matching(check)
	if hold == nil {
		return ""
	}
	return fmt.Sprintf("Held by ops (%s, by %s): %s. This run sends nothing until the hold is released.", hold.Selector, hold.By, hold.Reason)
}
