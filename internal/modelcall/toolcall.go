package modelcall

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// ToolArgs are the arguments any of the run's tools accepts. Target fields
// are optional; when the model gives them they must name the run's own PR.
type ToolArgs struct {
	Body       string `json:"body"`
	Owner      string `json:"owner"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
}

// Arguments is a call's arguments, or an empty JSON object for none.
func Arguments(raw json.RawMessage) []byte {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("{}")
	}
	return raw
}

// CheckToolCall finds the tool of a call, reads the call's arguments for it
// and checks them against the run's target. It returns the tool and the
// arguments, or why the call is refused; the refusal is what the model is told.
func CheckToolCall(call api.ToolCall, target api.Target) (api.ToolSpec, ToolArgs, string) {
	spec, ok := ToolByName(call.Name)
	if !ok {
		return spec, ToolArgs{}, fmt.Sprintf("unknown tool %q", call.Name)
	}
	args, refusal := checkArgs(spec, call, target)
	return spec, args, refusal
}

// checkArgs reads a call's arguments for its tool and checks them against
// the run's target.
func checkArgs(spec api.ToolSpec, call api.ToolCall, target api.Target) (ToolArgs, string) {
	raw := Arguments(call.Arguments)
	// A provider carries arguments that are not JSON as a JSON string.
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = Arguments(json.RawMessage(text))
		if !json.Valid(raw) {
			return ToolArgs{}, fmt.Sprintf("invalid arguments for %s: not valid JSON: %q", call.Name, api.TruncateUTF8(text, 200))
		}
	}
	var args ToolArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&args); err != nil {
		return args, fmt.Sprintf("invalid arguments for %s: %v", call.Name, err)
	}
	if (args.Owner != "" && args.Owner != target.Owner) || (args.Repo != "" && args.Repo != target.Repo &&
		args.Repo != target.Owner+"/"+target.Repo) || (args.PullNumber != 0 && args.PullNumber != target.PullNumber) {
		return args, fmt.Sprintf("refused: %s may only act on %s/%s#%d", call.Name, target.Owner, target.Repo, target.PullNumber)
	}
	if spec.Name == api.ToolCreateIssueComment && args.Body == "" {
		return args, "invalid arguments for create_issue_comment: body is required"
	}
	if !spec.SideEffect && args.Body != "" {
		return args, fmt.Sprintf("invalid arguments for %s: it takes no body", call.Name)
	}
	return args, ""
}
