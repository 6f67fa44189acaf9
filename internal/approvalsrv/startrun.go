package approvalsrv

import (
	"net/http"
	"net/url"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// handleStartRun serves POST /v1/runs: one run per user and Idempotency-Key,
// 202 with its ID and snapshot URL to every repeat, 422 to another request.
func (s *Server) handleStartRun(w http.ResponseWriter, r *http.Request) {
	key, err := CheckIdempotencyKey(r.Header.Values(api.HeaderIdempotencyKey))
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	req, ok := parseSigned(s, w, r, ParseStart)
	if !ok {
		return
	}
	if err := CheckCallback(s.cfg.CallbackAllowed, req); err != nil {
		s.writeBadRequest(w, err)
		return
	}
	if req.FollowUp != "" {
		s.startFollowUp(w, r, req, key)
		return
	}
	in := req.Input()
	runID := runclient.KeyedRunID(in.UserID, key)
	in.ConversationID = runID
	logger := s.logger.With("run", runID, "user", in.UserID, "target", req.target().Ref(), "agent", in.Agent)
	started, err := s.runs.Start(r.Context(), runclient.StartRequest{
		RunID: runID, TaskQueue: s.cfg.TaskQueue, Input: in, RequestHash: runclient.RequestHash(in),
	})
	if err != nil {
		writeOutcome(w, TemporalFailure(logger, err, "start run"))
		return
	}
	logger.Info("run started or found", "closedStatus", started.ClosedStatus)
	w.Header().Set("Location", "/v1/runs/"+url.PathEscape(started.RunID))
	writeJSON(w, http.StatusAccepted, started)
}

// handleListRuns serves GET /v1/runs?status=&agent=&pageSize=&pageToken=.
func (s *Server) handleListRuns(w http.ResponseWriter, r *http.Request) {
	list, err := ParseList(r.URL.Query())
	if err != nil {
		s.writeBadRequest(w, err)
		return
	}
	page, err := s.runs.ListPage(r.Context(), list.Filter, list.PageSize, list.PageToken)
	if err != nil {
		writeOutcome(w, TemporalFailure(s.logger, err, "list runs"))
		return
	}
	writeJSON(w, http.StatusOK, page)
}
