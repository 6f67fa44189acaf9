package approvalsrv

import (
	"net/http"

	"github.com/agentrun/agentrun/internal/approvalsrv/answer"
	"github.com/agentrun/agentrun/internal/approvalsrv/request"
)

// checkPathIDs answers 400 for any route under /runs/ or /v1/runs/ whose
// runId, actionId or stepId breaks its rule, before authentication or any
// call to Temporal.
func checkPathIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := request.PathIDsError(r.URL.EscapedPath()); err != nil {
			answer.Error(w, http.StatusBadRequest, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}
