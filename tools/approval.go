package tools

import (
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
)

// Scoped is an action whose calls name values (add_labels names labels)
// that an agent may list in AgentTool.Allow: a call naming only listed
// values runs without asking, any other call asks a person. Both methods
// run in the workflow, so they must be deterministic.
type Scoped interface {
	Action
	// Allowed says whether every value call names is on allow.
	Allowed(call Call, allow []string) bool
	// Scope is what the values are, in the plural, for the description the
	// model reads ("labels").
	Scope() string
}

// Approval is what one agent's calls of one tool ask of a person: the rule
// Check applies and the description the model reads, in one place.
type Approval int

// Approvals.
const (
	// ApprovalNever: the call runs at once (a read, or a NeverAsk action).
	ApprovalNever Approval = iota
	// ApprovalAlways: every call waits for a person's approval.
	ApprovalAlways
	// ApprovalOutsideAllow: a call of a Scoped action runs at once when
	// every value it names is on the agent's Allow list, and asks
	// otherwise.
	ApprovalOutsideAllow
)

// approval is the rule for at's calls of the tool e.
func approval(e entry, at AgentTool) Approval {
	// ifs, not a switch, as in Registry.Add: a mutation test reaches no
	// case expression.
	if e.action == nil || e.gate == NeverAsk {
		return ApprovalNever
	}
	if e.gate == AlwaysAsk || at.Ask {
		return ApprovalAlways
	}
	if _, scoped := e.action.(Scoped); scoped {
		if len(at.Allow) == 0 {
			// A Scoped action names what it changes: with nothing listed,
			// nothing it could name is known to be harmless.
			return ApprovalAlways
		}
		return ApprovalOutsideAllow
	}
	return ApprovalNever
}

// Approval is what the agent's calls of the tool ask of a person.
func (r *Registry) Approval(a Agent, tool string) (Approval, error) {
	at, offered := a.Tool(tool)
	e, registered := r.tools[tool]
	if !offered || !registered {
		return 0, fmt.Errorf("agent %q has no tool %q", a.Name, tool)
	}
	return approval(e, at), nil
}

// asks says whether one checked call waits for a person.
func asks(e entry, at AgentTool, call Call) bool {
	switch approval(e, at) {
	case ApprovalAlways:
		return true
	case ApprovalOutsideAllow:
		return !e.action.(Scoped).Allowed(call, at.Allow)
	default:
		return false
	}
}

// ApprovalNote is the sentence the registry ends a tool's description with,
// for the agent that is offered it: a tool's own description never says
// whether a person approves, so it cannot say what the gate does not do.
func ApprovalNote(rule Approval, scope string, allow []string) string {
	switch rule {
	case ApprovalAlways:
		return "A person approves the exact call before it runs."
	case ApprovalOutsideAllow:
		return fmt.Sprintf("It runs without a person's approval only when its %s are all among: %s; "+
			"a call naming anything else waits for a person to approve the exact call.", scope, strings.Join(allow, ", "))
	default:
		return "It runs at once, without a person's approval."
	}
}

// LiftedNote ends a tool's description in a run whose input lifted the
// agent's gate by rule: the call runs at once, as proposed.
func LiftedNote(rule string) string {
	return "In this run it runs at once, as you propose it, without a person's approval (" + rule + ")."
}

// spec is e's spec as at's agent is offered it: its description ends with
// the approval note.
func spec(e entry, at AgentTool) api.ToolSpec {
	s := e.tool.Spec()
	rule := approval(e, at)
	scope := ""
	if rule == ApprovalOutsideAllow {
		scope = e.action.(Scoped).Scope()
	}
	s.Description = strings.TrimSpace(s.Description + " " + ApprovalNote(rule, scope, at.Allow))
	return s
}

// checkAllow refuses an Allow list that could not take effect: a list says
// which calls go unasked, so one on a tool that asks anyway, or that is not
// Scoped, would only mislead its reader.
func checkAllow(agent string, e entry, at AgentTool) error {
	if len(at.Allow) == 0 {
		return nil
	}
	if _, scoped := e.action.(Scoped); !scoped || e.gate != AgentDecides || at.Ask {
		return fmt.Errorf("agent %q: tool %q takes no Allow list (only an AgentDecides Scoped action that does not Ask does)", agent, at.Name)
	}
	for _, v := range at.Allow {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("agent %q: tool %q: a blank value in Allow", agent, at.Name)
		}
	}
	return nil
}
