package api

import (
	"encoding/json"
	"time"
)

// ToolInput is the input of ActivityExecuteTool and ActivityReconcileTool:
// one call of a registered tool, as the workflow checked it.
type ToolInput struct {
	Tool string `json:"tool"`
	// Args is the canonical JSON of the call's arguments.
	Args   json.RawMessage `json:"args"`
	Target Target          `json:"target"`
	// OperationKey and ApprovedSHA256 are set for an action only
	// (tools.Call). The run names the approved preview by its digest
	// (PreviewDigest), not its text: the worker recomputes the preview from
	// Args and takes it only when its digest matches, so the history records
	// the text once (in the model's answer). Approved carries the text
	// itself, for a caller outside a run.
	OperationKey   string `json:"operationKey,omitempty"`
	Approved       string `json:"approved,omitempty"`
	ApprovedSHA256 string `json:"approvedSha256,omitempty"`
	// Attempt is the step's attempt (AgentStep.Attempt) and KeyRecordedAt
	// when the run recorded OperationKey (AgentStep.KeyRecordedAt): an
	// action's, for its strategy (tools.Call).
	Attempt       int        `json:"attempt,omitempty"`
	KeyRecordedAt *time.Time `json:"keyRecordedAt,omitempty"`
}

// NewToolInput is the input of a call; preview is the approved text of an
// action, sent as its PreviewDigest.
func NewToolInput(tool string, args json.RawMessage, target Target, operationKey, preview string) ToolInput {
	in := ToolInput{Tool: tool, Args: args, Target: target, OperationKey: operationKey}
	if preview != "" {
		in.ApprovedSHA256 = PreviewDigest(preview)
	}
	return in
}

// PreviewDigest is the sha256 of an action's approved preview.
func PreviewDigest(preview string) string { return sha256Hex([]byte(preview)) }

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
