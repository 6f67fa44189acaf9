package approvalsrv

import (
	"net/http"
)

// handleSnapshot serves GET /v1/runs/{runId}: the run query, as JSON.
func (s *Server) handleSnapshot(w http.ResponseWriter, r *http.Request) {
	runID := r.PathValue("runId")
	snap, err := s.runs.Snapshot(r.Context(), runID)
	if err != nil {
		writeOutcome(w, temporalFailure(s.logger.With("run", runID), err, "run query"))
		return
	}
	writeJSON(w, http.StatusOK, snap)
}

// handleApprovals serves GET /v1/approvals: the inbox across runs.
func (s *Server) handleApprovals(w http.ResponseWriter, r *http.Request) {
	inbox, err := s.inbox.list(r.Context())
	if err != nil {
		writeOutcome(w, temporalFailure(s.logger, err, "listing pending approvals"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"approvals": inbox})
}
