package approvalsrv

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// Path IDs are checked before any other work: they end up in Temporal calls,
// in a visibility query (action IDs) and in logs, so only a short, plain
// alphabet gets that far.
const (
	maxPathIDLength     = 128
	pathIDCharsRuleText = "letters, digits, '.', '_', ':' and '-'"
)

// checkPathID is the rule for a run or step ID.
func checkPathID(name, id string) error {
	if id == "" || len(id) > maxPathIDLength || !plainID(id) {
		return invalidf("%s must be 1 to %d characters: %s", name, maxPathIDLength, pathIDCharsRuleText)
	}
	return nil
}

// checkActionID is the rule for an action ID, wherever it comes from (a path
// or a GitHub comment): runclient's, as the visibility query it ends up in
// is runclient's.
func checkActionID(id string) error {
	if !api.ValidActionID(id) {
		return &invalidRequest{Problem: runclient.ErrBadActionID.Error()}
	}
	return nil
}

func plainID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// pathIDNames maps the path segment that precedes an ID to the ID's name.
var pathIDNames = map[string]string{"runs": "runId", "actions": "actionId", "steps": "stepId"}

// pathIDsError checks every runId, actionId and stepId of a path under
// /runs/ or /v1/runs/, each segment unescaped on its own as ServeMux does,
// so that it checks exactly what PathValue returns.
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
			return invalidf("%s is not a valid path segment", name)
		}
		if name == "actionId" {
			err = checkActionID(id)
		} else {
			err = checkPathID(name, id)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// checkPathIDs answers 400 for any route under /runs/ or /v1/runs/ whose
// runId, actionId or stepId breaks its rule, before authentication or any
// call to Temporal.
func checkPathIDs(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := pathIDsError(r.URL.EscapedPath()); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return
		}
		next.ServeHTTP(w, r)
	})
}
