package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// Cancel is the body of POST /v1/runs/{runId}/cancel.
type Cancel struct {
	By        string `json:"by"`
	Reason    string `json:"reason"`
	RequestID string `json:"requestId"`
}

// ParseCancel parses and validates a cancel body.
func ParseCancel(body []byte) (Cancel, error) { return parse[Cancel](body) }

// Validate checks a cancel from any channel: who, why, and the request's ID.
func (req Cancel) Validate() error {
	if err := checkName("by", req.By); err != nil {
		return err
	}
	if strings.TrimSpace(req.Reason) == "" {
		return Invalidf("missing field: reason (a cancel must say why)")
	}
	if len(req.Reason) > api.MaxCancelReasonBytes || HasControl(strings.ReplaceAll(req.Reason, "\n", " ")) {
		return Invalidf("reason must be valid UTF-8 of at most %d bytes, without control characters", api.MaxCancelReasonBytes)
	}
	return checkRequestID(req.RequestID)
}

// handleSignedCancel serves POST /v1/runs/{runId}/cancel.
func (s *Server) handleSignedCancel(w http.ResponseWriter, r *http.Request) {
	req, ok := parseSigned(s, w, r, ParseCancel)
	if !ok {
		return
	}
	writeOutcome(w, s.cancelOnce(r.Context(), r.PathValue("runId"), req, channelAPI))
}

// cancelOnce is cancelRun behind the requestId memo: a repeat answers as
// the first did and sends nothing; the same requestId with another reason
// is 409. The run remembers the requestId too, past this server's memory.
func (s *Server) cancelOnce(ctx context.Context, runID string, req Cancel, channel string) Outcome {
	key := "cancel\x00" + runID + "\x00" + channel + "\x00" + strings.ToLower(req.By) + "\x00" + req.RequestID
	return s.answers.Do(key, req.Reason, func() Outcome { return s.cancelRun(ctx, runID, req, channel) })
}

// cancelRun checks who may cancel through the run query (or, with no worker
// answering, against the run's last known state), then signals. The
// workflow checks again and has the final word: a run last known without
// its memo (it never waited) names nobody to check against here.
func (s *Server) cancelRun(ctx context.Context, runID string, req Cancel, channel string) Outcome {
	logger := s.logger.With("run", runID, "by", req.By, "channel", channel, "requestId", req.RequestID)
	reach, o := s.reachRun(ctx, logger, runID, "run query before a cancel")
	if !o.OK() {
		return o
	}
	snap := reach.Snapshot
	if snap.Run.Status.IsTerminal() {
		return Refused(http.StatusConflict, fmt.Sprintf("the run has ended (%s)", snap.Run.Status))
	}
	if snap.Cancel != nil {
		return Accepted("already cancelled by " + snap.Cancel.By)
	}
	if reach.Live || snap.Run.Repo != "" {
		if o := s.authorizeCancel(ctx, snap.Run, req.By); !o.OK() {
			logger.Info("cancel refused", "code", o.Code, "reason", o.Error)
			return o
		}
	}
	if o := s.takeUnchecked(reach, runID, req.By); !o.OK() {
		logger.Info("cancel refused", "code", o.Code, "reason", o.Error)
		return o
	}
	sig := api.CancelSignal{By: req.By, Reason: req.Reason, RequestID: req.RequestID, Channel: channel}
	if err := s.runs.Cancel(ctx, runID, sig); err != nil {
		if errors.Is(err, ErrRunNotFound) {
			return Refused(http.StatusConflict, "the run has ended")
		}
		return TemporalFailure(logger, err, "cancel signal")
	}
	logger.Info("cancel signal sent", "live", reach.Live)
	return sent(reach)
}

// authorizeCancel is the workflow's rule (workflows.RefuseCancel), applied
// early: the requester, an approver, or a writer when the run names none.
func (s *Server) authorizeCancel(ctx context.Context, run api.Run, by string) Outcome {
	if api.SameLogin(run.UserID, by) || slices.ContainsFunc(run.Approvers, func(a string) bool { return api.SameLogin(a, by) }) {
		return Accepted("")
	}
	if len(run.Approvers) > 0 {
		return Refused(http.StatusForbidden, fmt.Sprintf("%s may not cancel this run: only its requester or an approver may", by))
	}
	if s.permissions == nil {
		return Accepted("") // the workflow asks GitHub itself
	}
	refusal, err := s.requireWritePermission(ctx, run, by)
	if err != nil {
		s.logger.Error("canceller check failed", "run", run.ID, "err", err)
		return Refused(http.StatusBadGateway, "could not check the permission to cancel; try again later")
	}
	if refusal != "" {
		return Refused(http.StatusForbidden, strings.Replace(refusal, "approving needs write", "cancelling needs write", 1))
	}
	return Accepted("")
}

// cancelForm is cancelOnce for the run page's cancel button.
func (s *Server) cancelForm(ctx context.Context, runID string, req Cancel) Outcome {
	return s.cancelOnce(ctx, runID, req, channelWeb)
}

// CancelForm serves the run page's cancel button: POST /runs/{runId}/cancel,
// behind the CSRF token like the decision form. Who cancels is the user the
// login proxy names, as for a decision, never a field of the form.
func (s *Pages) CancelForm(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	form, o, stale := s.formRequest(w, r)
	if o.OK() {
		req := Cancel{By: form.Approver, Reason: form.Reason, RequestID: form.RequestID}
		if o = validForm(req.Validate()); o.OK() {
			o = s.opts.Cancel(r.Context(), runID, req)
		}
	}
	s.AnswerForm(w, r, runID, o, stale)
}
