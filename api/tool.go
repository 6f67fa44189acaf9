package api

import "encoding/json"

// ToolInput is the input of ActivityExecuteTool and ActivityReconcileTool:
// one call of a registered tool, as the workflow checked it.
type ToolInput struct {
	Tool string `json:"tool"`
	// Args is the canonical JSON of the call's arguments.
	Args   json.RawMessage `json:"args"`
	Target Target          `json:"target"`
	// OperationKey and Approved are set for an action only (tools.Call).
	OperationKey string `json:"operationKey,omitempty"`
	Approved     string `json:"approved,omitempty"`
}

// ToolOutput is what a tool returns.
type ToolOutput struct {
	// Content is what the model reads, as JSON.
	Content json.RawMessage `json:"content"`
	// SafeOutput is what the run's steps show; empty means Content, redacted.
	SafeOutput json.RawMessage `json:"safeOutput,omitempty"`
	// ExternalID names what an action created (a comment ID, an issue
	// number), and URL where people see it.
	ExternalID string `json:"externalId,omitempty"`
	URL        string `json:"url,omitempty"`
	// AlreadyExisted: the action's own earlier effect was found and nothing
	// was done again.
	AlreadyExisted bool `json:"alreadyExisted,omitempty"`
	// Ignored lists look-alikes: things that carry the operation's marker
	// but do not prove it (another author, another text).
	Ignored []IgnoredComment `json:"ignored,omitempty"`
}

// ToolReconciliation is Reconcile's answer: Outcome is one of the Reconcile*
// constants; Output is the found effect's, and carries look-alikes whatever
// the outcome; Reason says why it cannot tell.
type ToolReconciliation struct {
	Outcome string     `json:"outcome"`
	Output  ToolOutput `json:"output"`
	Reason  string     `json:"reason,omitempty"`
}
