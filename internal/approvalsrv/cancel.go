package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// cancelRequest is the body of POST /v1/runs/{runId}/cancel.
type cancelRequest struct {
	By        string `json:"by"`
	Reason    string `json:"reason"`
	RequestID string `json:"requestId"`
}

// parseCancel parses and validates a cancel body.
func parseCancel(body []byte) (cancelRequest, error) { return parse[cancelRequest](body) }

// Validate checks a cancel from any channel: who, why, and the request's ID.
func (req cancelRequest) Validate() error {
	if err := checkName("by", req.By); err != nil {
		return err
	}
	if strings.TrimSpace(req.Reason) == "" {
		return invalidf("missing field: reason (a cancel must say why)")
	}
	if len(req.Reason) > api.MaxCancelReasonBytes || hasControl(strings.ReplaceAll(req.Reason, "\n", " ")) {
		return invalidf("reason must be valid UTF-8 of at most %d bytes, without control characters", api.MaxCancelReasonBytes)
	}
	return checkRequestID(req.RequestID)
}

// handleSignedCancel serves POST /v1/runs/{runId}/cancel.
func (s *Server) handleSignedCancel(w http.ResponseWriter, r *http.Request) {
	req, ok := parseSigned(s, w, r, parseCancel)
	if !ok {
		return
	}
	writeOutcome(w, s.cancelOnce(r.Context(), r.PathValue("runId"), req, channelAPI))
}

// cancelOnce is cancelRun behind the requestId memo: a repeat answers as
// the first did and sends nothing; the same requestId with another reason
// is 409. The run remembers the requestId too, past this server's memory.
func (s *Server) cancelOnce(ctx context.Context, runID string, req cancelRequest, channel string) outcome {
	key := "cancel\x00" + runID + "\x00" + channel + "\x00" + strings.ToLower(req.By) + "\x00" + req.RequestID
	return s.answers.Do(key, req.Reason, func() outcome { return s.cancelRun(ctx, runID, req, channel) })
}

// cancelRun checks who may cancel through the run query (or, with no worker
// answering, against the run's last known state), then signals. The
// workflow checks again and has the final word: a run last known without
// its memo (it never waited) names nobody to check against here.
func (s *Server) cancelRun(ctx context.Context, runID string, req cancelRequest, channel string) outcome {
	logger := s.logger.With("run", runID, "by", req.By, "channel", channel, "requestId", req.RequestID)
	reach, o := s.reachRun(ctx, logger, runID, "run query before a cancel")
	if !o.OK() {
		return o
	}
	snap := reach.Snapshot
	if snap.Run.Status.IsTerminal() {
		return refused(http.StatusConflict, fmt.Sprintf("the run has ended (%s)", snap.Run.Status))
	}
	if snap.Cancel != nil {
		return accepted("already cancelled by " + snap.Cancel.By)
	}
	vetted := false
	if reach.KnowsWho {
		var o outcome
		if vetted, o = s.authorizeCancel(ctx, snap.Run, req.By); !o.OK() {
			logger.Info("cancel refused", "code", o.Code, "reason", o.Error)
			return o
		}
	}
	if o := s.takeUnchecked(reach, runID, req.By, vetted); !o.OK() {
		logger.Info("cancel refused", "code", o.Code, "reason", o.Error)
		return o
	}
	sig := api.CancelSignal{By: req.By, Reason: req.Reason, RequestID: req.RequestID, Channel: channel}
	if err := s.runs.Cancel(ctx, runID, sig); err != nil {
		if errors.Is(err, errRunNotFound) {
			return refused(http.StatusConflict, "the run has ended")
		}
		return temporalFailure(logger, err, "cancel signal")
	}
	logger.Info("cancel signal sent", "live", reach.Live)
	return sent(reach)
}

// authorizeCancel applies the run's rule (api.MayCancel) early: the
// requester, an approver, or a writer when the run names none. vetted says
// the rule accepted by here, not only let by: false when no permission
// source could tell whether by writes.
func (s *Server) authorizeCancel(ctx context.Context, run api.Run, by string) (vetted bool, o outcome) {
	why, needsWriter := api.MayCancel(run, by)
	switch {
	case why != "":
		return false, refused(http.StatusForbidden, why)
	case !needsWriter:
		return true, accepted("")
	case s.permissions == nil:
		return false, accepted("") // without a permission source, the workflow asks GitHub itself
	}
	refusal, err := s.requireWritePermission(ctx, run, by, "cancelling")
	if err != nil {
		s.logger.Error("canceller check failed", "run", run.ID, "err", err)
		return false, refused(http.StatusBadGateway, "could not check the permission to cancel; try again later")
	}
	if refusal != "" {
		return false, refused(http.StatusForbidden, refusal)
	}
	return true, accepted("")
}

// cancelForm is cancelOnce for the run page's cancel button.
func (s *Server) cancelForm(ctx context.Context, runID string, req cancelRequest) outcome {
	return s.cancelOnce(ctx, runID, req, channelWeb)
}

// serveCancelForm serves the run page's cancel button: POST /runs/{runId}/cancel,
// behind the CSRF token like the decision form. Who cancels is the user the
// login proxy names, as for a decision, never a field of the form.
func (s *pages) serveCancelForm(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	form, o, stale := s.formRequest(w, r)
	if o.OK() {
		req := cancelRequest{By: form.Approver, Reason: form.Reason, RequestID: form.RequestID}
		if o = validForm(req.Validate()); o.OK() {
			o = s.cancelForm(r.Context(), runID, req)
		}
	}
	s.answerForm(w, r, runID, o, stale)
}
