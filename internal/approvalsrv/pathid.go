package approvalsrv

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentrun/agentrun/internal/approvalsrv/answer"
	"github.com/agentrun/agentrun/internal/approvalsrv/request"
)

// pathIDNames maps the path segment that precedes an ID to the ID's name.
var pathIDNames = map[string]string{"runs": "runId", "actions": "actionId", "steps": "stepId"}

// checkPathIDs answers 400 for any route under /runs/ or /v1/runs/ whose
// runId, actionId or stepId breaks its rule, before authentication or any
// call to Temporal. It reads the segments the way ServeMux does (each one
// unescaped on its own), so that it checks exactly what PathValue returns.
func checkPathIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := pathIDsError(r.URL.EscapedPath()); err != nil {
			answer.Error(w, http.StatusBadRequest, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}

func pathIDsError(escapedPath string) error {
	rest, ok := strings.CutPrefix(escapedPath, "/v1")
	if !ok {
		rest = escapedPath
	}
	if !strings.HasPrefix(rest, "/runs/") {
		return nil
	}
	segments := strings.Split(strings.TrimPrefix(rest, "/"), "/")
	for i := 0; i+1 < len(segments); i += 2 {
		name, ok := pathIDNames[segments[i]]
		if !ok {
			return nil
		}
		id, err := url.PathUnescape(segments[i+1])
		if err != nil {
			return request.Invalidf("%s is not a valid path segment", name)
		}
		if name == "actionId" {
			err = request.CheckActionID(id)
		} else {
			err = request.CheckPathID(name, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
