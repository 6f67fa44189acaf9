package tools

// Agent is what one kind of run is: its prompt, its tools and its limits.
type Agent struct {
	// Name is what a run names (RunInput.Agent): lower case, digits and
	// dashes.
	Name string
	// SystemPrompt opens every conversation of the agent.
	SystemPrompt string
	// Task opens the user's message, before the target it names
	// ("Review pull request" makes "Review pull request acme/widgets#1.").
	Task string
	// TargetKind is the kind of target the agent takes (api/target.go);
	// empty means api.TargetPullRequest. A run naming the agent with a
	// target of another kind fails at once, saying so.
	TargetKind string
	// TargetLabel is how a person names a target of that kind: text with
	// the target's fields in braces, "#{channel}" for a chat channel,
	// "{id}" for a ticket. The run records it (api.Run.TargetLabel), so
	// that every view prints it; empty means api.Target.Label. Agents that
	// take the same kind declare the same label.
	TargetLabel string
	// Tools are the tools the agent may call, in the order the model sees
	// them.
	Tools []AgentTool
	// MaxSteps bounds the agent's model calls when the run sets none.
	MaxSteps int
	// BatchApproval lets one decision cover several of a turn's actions,
	// each named by its argsHash.
	BatchApproval bool
}

// AgentTool is one tool an agent may call.
type AgentTool struct {
	Name string
	// Ask makes an AgentDecides action wait for approval. A tool registered
	// with AlwaysAsk asks whatever this says.
	Ask bool
	// Allow lists the values (labels, for add_labels) a call of a Scoped
	// action may name and still run without asking, when Ask is false. A
	// call naming anything else asks; with Allow empty, every call asks.
	Allow []string
	// Optional marks a tool whose failure degrades the answer (the run ends
	// with outcome partial) instead of failing the run.
	Optional bool
	// NoEdit forbids an approver to edit the action's arguments with the
	// approval (api.ApprovalSignal.Args); by default an action may be
	// edited.
	NoEdit bool
}

// Tool finds one of the agent's tools by name.
func (a Agent) Tool(name string) (AgentTool, bool) {
	for _, t := range a.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return AgentTool{}, false
}
