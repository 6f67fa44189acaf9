package tools

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentrun/agentrun/api"
)

// Registry holds the tools and agents a worker serves. It is built once at
// start-up and only read afterwards, by the workflow and the activities alike,
// so every worker of a task queue must build the same one.
type Registry struct {
	tools  map[string]entry
	agents map[string]Agent
	// agentOrder names the agents in the order they were added.
	agentOrder []string
}

type entry struct {
	tool   Tool
	action Action // nil for a read
	gate   Gate
	schema *jsonschema.Resolved
}

// NewRegistry is an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]entry{}, agents: map[string]Agent{}}
}

// Add registers a tool. A read must be added with NeverAsk; an action's gate
// says when it asks. The spec's schema must describe a JSON object.
func (r *Registry) Add(t Tool, gate Gate) error {
	spec := t.Spec()
	if !api.ValidToolName(spec.Name) {
		return fmt.Errorf("tool name %q: want lower case letters, digits and _", spec.Name)
	}
	if _, dup := r.tools[spec.Name]; dup {
		return fmt.Errorf("tool %q is registered twice", spec.Name)
	}
	action, isAction := t.(Action)
	if isAction != spec.SideEffect {
		return fmt.Errorf("tool %q: SideEffect is %v, but it is %san Action", spec.Name, spec.SideEffect, map[bool]string{false: "not ", true: ""}[isAction])
	}
	// Two ifs, not a switch: Go's coverage profile holds no case
	// expression, so a mutation test would count these as reached by no test.
	if gate != AlwaysAsk && gate != NeverAsk && gate != AgentDecides {
		return fmt.Errorf("tool %q: unknown gate %q", spec.Name, gate)
	}
	if !isAction && gate != NeverAsk {
		return fmt.Errorf("tool %q reads: it takes NeverAsk, not %q", spec.Name, gate)
	}
	schema, err := resolveSchema(spec.Parameters)
	if err != nil {
		return fmt.Errorf("tool %q: %w", spec.Name, err)
	}
	r.tools[spec.Name] = entry{tool: t, action: action, gate: gate, schema: schema}
	return nil
}

func resolveSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("parameters are not a JSON schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("parameters describe %q; a tool takes an object", s.Type)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("parameters schema: %w", err)
	}
	return resolved, nil
}

// AddAgent registers an agent. Each of its tools must be registered first.
func (r *Registry) AddAgent(a Agent) error {
	if !api.ValidAgentName(a.Name) {
		return fmt.Errorf("agent name %q: want lower case letters, digits and -", a.Name)
	}
	if _, dup := r.agents[a.Name]; dup {
		return fmt.Errorf("agent %q is registered twice", a.Name)
	}
	if a.MaxSteps < 0 {
		return fmt.Errorf("agent %q: MaxSteps %d is negative", a.Name, a.MaxSteps)
	}
	if a.TargetKind != "" && !api.ValidTargetKind(a.TargetKind) {
		return fmt.Errorf("agent %q: target kind %q: want lower case letters, digits and _", a.Name, a.TargetKind)
	}
	if err := r.checkTargetLabel(a); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, t := range a.Tools {
		if _, ok := r.tools[t.Name]; !ok {
			return fmt.Errorf("agent %q: tool %q is not registered", a.Name, t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("agent %q lists tool %q twice", a.Name, t.Name)
		}
		if err := checkAllow(a.Name, r.tools[t.Name], t); err != nil {
			return err
		}
		seen[t.Name] = true
	}
	r.agents[a.Name] = a
	r.agentOrder = append(r.agentOrder, a.Name)
	return nil
}

// checkTargetLabel refuses a label that is not a template of field names,
// and one that another agent of the same kind declares otherwise: a kind
// reads one way in every view.
func (r *Registry) checkTargetLabel(a Agent) error {
	if err := api.CheckTargetLabel(a.TargetLabel); err != nil {
		return fmt.Errorf("agent %q: %w", a.Name, err)
	}
	kind := cmp.Or(a.TargetKind, api.TargetPullRequest)
	for _, name := range r.agentOrder {
		other := r.agents[name]
		if cmp.Or(other.TargetKind, api.TargetPullRequest) == kind && other.TargetLabel != a.TargetLabel {
			return fmt.Errorf("agent %q labels a %s target %q, agent %q labels it %q: a kind reads one way", a.Name, kind, a.TargetLabel, name, other.TargetLabel)
		}
	}
	return nil
}

// Agent finds an agent by name.
func (r *Registry) Agent(name string) (Agent, error) {
	if a, ok := r.agents[name]; ok {
		return a, nil
	}
	return Agent{}, fmt.Errorf("unknown agent %q (this worker serves %s)", name, strings.Join(r.agentOrder, ", "))
}

// Agents are the registered agents, in the order they were added.
func (r *Registry) Agents() []Agent {
	out := make([]Agent, 0, len(r.agentOrder))
	for _, name := range r.agentOrder {
		out = append(out, r.agents[name])
	}
	return out
}

// Tool finds a registered tool by name.
func (r *Registry) Tool(name string) (Tool, bool) {
	e, ok := r.tools[name]
	return e.tool, ok
}

// Action finds a registered action by name.
func (r *Registry) Action(name string) (Action, bool) {
	e, ok := r.tools[name]
	return e.action, ok && e.action != nil
}

// Specs are the agent's tools as the model is offered them, in the agent's
// order, each description ending with what the agent's calls of it ask of a
// person (ApprovalNote).
func (r *Registry) Specs(a Agent) []api.ToolSpec {
	specs := make([]api.ToolSpec, 0, len(a.Tools))
	for _, t := range a.Tools {
		specs = append(specs, spec(r.tools[t.Name], t))
	}
	return specs
}

// SpecsWithoutAsking are Specs for a run whose input lifted the agent's
// gate (api.RunInput.PostsWithoutAsking, which names the rule): no call
// waits for a person there, so no description may say one approves.
func (r *Registry) SpecsWithoutAsking(a Agent, rule string) []api.ToolSpec {
	specs := make([]api.ToolSpec, 0, len(a.Tools))
	for _, t := range a.Tools {
		s := r.tools[t.Name].tool.Spec()
		s.Description = strings.TrimSpace(s.Description + " " + LiftedNote(rule))
		specs = append(specs, s)
	}
	return specs
}
