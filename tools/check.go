package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentrun/agentrun/api"
)

// Checked is a call that passed every check: it may run.
type Checked struct {
	Spec api.ToolSpec
	// Call is what Execute and Reconcile get (without the operationKey,
	// which the run adds).
	Call Call
	// Action is the call's action; nil for a read.
	Action Action
	// Ask: the action waits for a person's approval first.
	Ask bool
	// Optional: the agent lets this tool fail without failing the run.
	Optional bool
	// Preview and Touches are the action's (tools.Action); empty for a read.
	Preview, Touches string
	// ArgsHash binds an approval to exactly this call.
	ArgsHash string
	// Editable: an approver may edit the action's arguments (AgentTool.NoEdit).
	Editable bool
}

// prPinFields are a pull request's fields a model may repeat in any tool
// call; when it does, they must name the run's own pull request. A tool whose
// schema declares one of them gets it as an argument. A target of another
// kind pins its own field names the same way (pinFields).
var prPinFields = []string{"owner", "repo", "pullNumber"}

func pinFields(target api.Target) []string {
	if target.IsPullRequest() {
		return prPinFields
	}
	return target.FieldNames()
}

// Check finds the agent's tool for a call, checks its arguments against the
// tool's schema and the run's pin, and asks an action for its preview. It
// returns why the call is refused, for the model, or "". It runs in the
// workflow: everything it calls is deterministic.
func (r *Registry) Check(a Agent, tc api.ToolCall, target api.Target) (Checked, string) {
	at, offered := a.Tool(tc.Name)
	e, registered := r.tools[tc.Name]
	if !offered || !registered {
		return Checked{}, fmt.Sprintf("unknown tool %q", tc.Name)
	}
	spec := spec(e, at)
	args, refusal := readArgs(tc)
	if refusal != "" {
		return Checked{}, refusal
	}
	if refusal := checkPin(spec, args, target); refusal != "" {
		return Checked{}, refusal
	}
	// The validator reports the first violation it meets, and may meet them
	// in another order on replay; only the text the model reads can differ,
	// never the verdict the workflow branches on.
	if err := e.schema.Validate(args); err != nil {
		return Checked{}, fmt.Sprintf("invalid arguments for %s: %v", tc.Name, err)
	}
	canonical, err := json.Marshal(args)
	if err != nil {
		return Checked{}, fmt.Sprintf("invalid arguments for %s: %v", tc.Name, err)
	}
	c := Checked{Spec: spec, Call: Call{Args: canonical, Target: target}, Optional: at.Optional}
	if e.action == nil {
		return c, ""
	}
	c.Action = e.action
	c.Ask = asks(e, at, c.Call)
	c.Editable = !at.NoEdit
	// An action's own refusals read as the action's: "refused: <why>".
	if c.Touches, err = e.action.Touches(c.Call); err != nil {
		return Checked{}, fmt.Sprintf("refused: %v", err)
	}
	if c.Preview, err = e.action.Preview(c.Call); err != nil {
		return Checked{}, fmt.Sprintf("refused: %v", err)
	}
	c.ArgsHash = api.ToolArgsHash(target, tc.Name, canonical)
	return c, ""
}

// readArgs decodes a call's arguments as a JSON object. A provider carries
// arguments that are not JSON as a JSON string, so one is unwrapped first.
func readArgs(tc api.ToolCall) (map[string]any, string) {
	raw := bytes.TrimSpace(tc.Arguments)
	if len(raw) == 0 {
		raw = []byte("{}")
	}
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = bytes.TrimSpace([]byte(text))
		if len(raw) == 0 {
			raw = []byte("{}")
		}
		if !json.Valid(raw) {
			return nil, fmt.Sprintf("invalid arguments for %s: not valid JSON: %q", tc.Name, api.TruncateUTF8(text, 200))
		}
	}
	var args map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&args); err != nil || args == nil {
		return nil, fmt.Sprintf("invalid arguments for %s: want a JSON object", tc.Name)
	}
	if dec.More() {
		return nil, fmt.Sprintf("invalid arguments for %s: more than one JSON value", tc.Name)
	}
	return args, ""
}

// checkPin refuses a call that names another target than the run's, and
// drops the pin fields the tool's schema does not take.
func checkPin(spec api.ToolSpec, args map[string]any, target api.Target) string {
	declared := declaredProperties(spec.Parameters, target)
	refuse := fmt.Sprintf("refused: %s may only act on %s", spec.Name, target.Ref())
	for _, f := range pinFields(target) {
		v, given := args[f]
		if !given {
			continue
		}
		if !pinMatches(f, v, target) {
			return refuse
		}
		if !declared[f] {
			delete(args, f)
		}
	}
	return ""
}

func pinMatches(field string, v any, target api.Target) bool {
	if !target.IsPullRequest() {
		s, ok := v.(string)
		return ok && (s == "" || s == target.Fields[field])
	}
	switch field {
	case "owner":
		s, ok := v.(string)
		return ok && (s == "" || s == target.Owner)
	case "repo":
		s, ok := v.(string)
		return ok && (s == "" || s == target.Repo || s == target.Owner+"/"+target.Repo)
	default:
		n, ok := v.(float64)
		return ok && (n == 0 || n == float64(target.PullNumber))
	}
}

func declaredProperties(schema json.RawMessage, target api.Target) map[string]bool {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	_ = json.Unmarshal(schema, &s)
	declared := make(map[string]bool, len(s.Properties))
	for _, f := range pinFields(target) {
		_, declared[f] = s.Properties[f]
	}
	return declared
}
