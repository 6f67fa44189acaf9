package approvalsrv

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/api"
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
}

func parseHold(body []byte) (holdRequest, error) { return parse[holdRequest](body) }

// Validate checks who, why and what a hold names.
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
	return nil
}

func (req holdRequest) signal() api.HoldSignal {
	return api.HoldSignal{Selector: req.Selector, By: strings.TrimSpace(req.By), Reason: strings.TrimSpace(req.Reason), Channel: channelAPI}
}

// handleHold serves POST /v1/holds.
func (s *Server) handleHold(w http.ResponseWriter, r *http.Request) {
	s.serveHold(w, r, s.runs.Hold, "held ")
}

// handleRelease serves POST /v1/holds/release.
func (s *Server) handleRelease(w http.ResponseWriter, r *http.Request) {
	s.serveHold(w, r, s.runs.Release, "released ")
}

func (s *Server) serveHold(w http.ResponseWriter, r *http.Request, send func(context.Context, string, api.HoldSignal) error, done string) {
	req, ok := parseSigned(s, w, r, parseHold)
	if !ok {
		return
	}
	sig := req.signal()
	if err := send(r.Context(), s.cfg.TaskQueue, sig); err != nil {
		writeOutcome(w, temporalFailure(s.logger.With("by", sig.By, "selector", sig.Selector.String()), err, "holds signal"))
		return
	}
	s.logger.Info("holds changed", "change", strings.TrimSpace(done), "selector", sig.Selector.String(), "by", sig.By)
	writeOutcome(w, accepted(done+sig.Selector.String()))
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
