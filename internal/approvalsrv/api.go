package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/agentrun/agentrun/workflows"
)

// handleSignedDecision serves POST /v1/runs/{runId}/actions/{actionId}/decision.
func (s *Server) handleSignedDecision(w http.ResponseWriter, r *http.Request) {
	body, o := s.readSignedBody(w, r)
	if !o.ok() {
		writeOutcome(w, o)
		return
	}
	req, err := ParseDecision(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	runID, actionID := r.PathValue("runId"), r.PathValue("actionId")
	key := "decision\x00" + runID + "\x00" + actionID + "\x00" + req.RequestID
	writeOutcome(w, s.answers.do(key, func() outcome {
		return s.decide(r.Context(), decisionInput{RunID: runID, ActionID: actionID, Request: req, Channel: channelAPI})
	}))
}

// handleSignedResolve serves POST /v1/runs/{runId}/steps/{stepId}/resolve.
func (s *Server) handleSignedResolve(w http.ResponseWriter, r *http.Request) {
	body, o := s.readSignedBody(w, r)
	if !o.ok() {
		writeOutcome(w, o)
		return
	}
	req, err := ParseResolve(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	runID, stepID := r.PathValue("runId"), r.PathValue("stepId")
	key := "resolve\x00" + runID + "\x00" + stepID + "\x00" + req.RequestID
	writeOutcome(w, s.answers.do(key, func() outcome {
		return s.resolve(r.Context(), runID, stepID, req)
	}))
}

// readSignedBody checks content type, size and signature, in that order, and
// returns the raw body the signature covers.
func (s *Server) readSignedBody(w http.ResponseWriter, r *http.Request) ([]byte, outcome) {
	if !hasMediaType(r, "application/json") {
		return nil, refused(http.StatusUnsupportedMediaType, "Content-Type must be application/json")
	}
	body, o := readLimitedBody(w, r, maxAPIBodyBytes)
	if !o.ok() {
		return nil, o
	}
	if s.cfg.Secret == "" && s.cfg.InsecureDev {
		return body, accepted("")
	}
	err := verifySignature([]byte(s.cfg.Secret), r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature), body, s.now())
	if err != nil {
		s.logger.Info("signed request refused", "path", r.URL.Path, "reason", err)
		return nil, refused(http.StatusUnauthorized, err.Error())
	}
	return body, accepted("")
}

func hasMediaType(r *http.Request, want string) bool {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mediaType == want
}

func readLimitedBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, outcome) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		if tooLarge := new(http.MaxBytesError); errors.As(err, &tooLarge) {
			return nil, refused(http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d KiB", limit>>10))
		}
		return nil, refused(http.StatusBadRequest, "could not read the body")
	}
	return body, accepted("")
}

// resolve checks that the step is waiting for a resolution, then signals.
func (s *Server) resolve(ctx context.Context, runID, stepID string, req ResolveRequest) outcome {
	logger := s.logger.With("run", runID, "step", stepID, "by", req.By, "decision", req.Decision, "requestId", req.RequestID)
	snap, err := s.runs.Snapshot(ctx, runID)
	if err != nil {
		return s.temporalFailure(logger, err, "run query before a resolve")
	}
	step := findStep(snap, stepID)
	if step == nil {
		return refused(http.StatusNotFound, "unknown step for this run")
	}
	if step.Status != workflows.StepOutcomeUnknown {
		logger.Info("resolve refused", "stepStatus", step.Status)
		return refused(http.StatusConflict, fmt.Sprintf("the step is %s, not waiting for a resolution", step.Status))
	}
	sig := workflows.ResolveSignal{StepID: stepID, Decision: req.Decision, ExternalResourceID: req.ExternalResourceID, By: req.By}
	if err := s.runs.SignalResolve(ctx, runID, sig); err != nil {
		if errors.Is(err, ErrRunNotFound) {
			return refused(http.StatusConflict, "the run has ended")
		}
		return s.temporalFailure(logger, err, "resolve signal")
	}
	logger.Info("resolve signal sent")
	return accepted(statusSignalSent)
}
