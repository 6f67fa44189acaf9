package approvalsrv

import (
	"net/http"
)

// checkPathIDs answers 400 for any route under /runs/ or /v1/runs/ whose
// runId, actionId or stepId breaks its rule, before authentication or any
// call to Temporal.
func checkPathIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := PathIDsError(r.URL.EscapedPath()); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}
