package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/agentrun/agentrun/api"
)

// handleSignedDecision serves POST /v1/runs/{runId}/actions/{actionId}/decision.
func (s *Server) handleSignedDecision(w http.ResponseWriter, r *http.Request) {
	req, ok := parseSigned(s, w, r, parseDecision)
	if !ok {
		return
	}
	runID, actionID := r.PathValue("runId"), r.PathValue("actionId")
	writeOutcome(w, s.decideOnce(r.Context(), decisionInput{RunID: runID, ActionID: actionID, Request: req, Channel: channelAPI}))
}

// handleSignedResolve serves POST /v1/runs/{runId}/steps/{stepId}/resolve.
func (s *Server) handleSignedResolve(w http.ResponseWriter, r *http.Request) {
	req, ok := parseSigned(s, w, r, parseResolve)
	if !ok {
		return
	}
	runID, stepID := r.PathValue("runId"), r.PathValue("stepId")
	key := "resolve\x00" + runID + "\x00" + stepID + "\x00" + req.RequestID
	writeOutcome(w, s.answers.Do(key, resolveMemoBody(req), func() outcome {
		return s.resolve(r.Context(), runID, stepID, req)
	}))
}

// parseSigned checks the content type and parses the body, which the signed
// middleware has already read and verified. When it cannot, it answers the
// caller itself (415, 413 or 400 with the parser's reason) and ok is false.
func parseSigned[T any](s *Server, w http.ResponseWriter, r *http.Request, parse func([]byte) (T, error)) (req T, ok bool) {
	if !hasMediaType(r, "application/json") {
		writeOutcome(w, refused(http.StatusUnsupportedMediaType, "Content-Type must be application/json"))
		return req, false
	}
	body, o := readBody(w, r, maxAPIBodyBytes)
	if !o.OK() {
		writeOutcome(w, o)
		return req, false
	}
	req, err := parse(body)
	if err != nil {
		s.writeBadRequest(w, err)
		return req, false
	}
	return req, true
}

// writeBadRequest answers 400 with the parser's reason, which is written for
// the caller; any other error's text stays in the log.
func (s *Server) writeBadRequest(w http.ResponseWriter, err error) {
	var bad *invalidRequest
	if errors.As(err, &bad) {
		writeError(w, http.StatusBadRequest, bad.Problem)
		return
	}
	s.logger.Error("request refused", "err", err)
	writeError(w, http.StatusBadRequest, "bad request")
}

// resolve checks that the step is waiting for a resolution, then signals.
// With no worker answering, the run's last known state has no steps: the
// resolve is recorded, and the workflow checks the step when it runs.
func (s *Server) resolve(ctx context.Context, runID, stepID string, req resolveRequest) outcome {
	logger := s.logger.With("run", runID, "step", stepID, "by", req.By, "decision", req.Decision, "requestId", req.RequestID)
	reach, o := s.reachRun(ctx, logger, runID, "run query before a resolve")
	if !o.OK() {
		return o
	}
	if reach.Live {
		step := stepIn(reach.Snapshot, stepID)
		if step == nil {
			return refused(http.StatusNotFound, "unknown step for this run")
		}
		if step.Status != api.StepOutcomeUnknown {
			logger.Info("resolve refused", "stepStatus", step.Status)
			return refused(http.StatusConflict, fmt.Sprintf("the step is %s, not waiting for a resolution", step.Status))
		}
	}
	// Any signed caller may resolve, naming whoever it likes: no rule of
	// the run vouches for the name, so the run's cap counts it.
	if o := s.takeUnchecked(reach, runID, req.By, false); !o.OK() {
		logger.Info("resolve refused", "code", o.Code, "reason", o.Error)
		return o
	}
	sig := api.ResolveSignal{StepID: stepID, Decision: req.Decision, ExternalResourceID: req.ExternalResourceID, By: req.By}
	if err := s.runs.Resolve(ctx, runID, sig); err != nil {
		if errors.Is(err, errRunNotFound) {
			return refused(http.StatusConflict, "the run has ended")
		}
		return temporalFailure(logger, err, "resolve signal")
	}
	logger.Info("resolve signal sent", "live", reach.Live)
	return sent(reach)
}
