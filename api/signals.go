package api

import "encoding/json"

// Decisions carried by the signals.
const (
	// DecisionApprove and DecisionReject are an ApprovalSignal's decisions.
	DecisionApprove = "approve"
	DecisionReject  = "reject"

	// ResolveRetry, ResolveMarkSucceeded and ResolveAbandon are a
	// ResolveSignal's decisions.
	ResolveRetry         = "retry"
	ResolveMarkSucceeded = "mark_succeeded"
	ResolveAbandon       = "abandon"
)

// ApprovalSignal is the payload of SignalApproval.
type ApprovalSignal struct {
	ActionID string `json:"actionId"`
	Decision string `json:"decision"` // DecisionApprove, DecisionReject or DecisionRespond
	Approver string `json:"approver"`
	Reason   string `json:"reason,omitempty"` // a respond's feedback
	// Args, only with an approve, are the action's arguments as the
	// approver edited them (a JSON object); ArgsHash then names the version
	// edited. The run checks them as it checked the model's call, and runs
	// them in its place.
	Args      json.RawMessage `json:"args,omitempty"`
	RequestID string          `json:"requestId,omitempty"`
	// Channel says how the decision arrived (signed API, GitHub comment, web
	// page, CLI). A requestId is remembered per channel and approver, so one
	// person cannot burn another's requestId.
	Channel string `json:"channel,omitempty"`
	// ArgsHash, when set, binds the decision to the action's exact input:
	// it applies only while it is the action's ArgsHash.
	ArgsHash string `json:"argsHash,omitempty"`
	// Batch lists more actions of the same run that the decision covers,
	// each bound by its argsHash. Only a run whose agent takes batch
	// approvals accepts one, and then ActionID's ArgsHash is required too.
	Batch []ActionRef `json:"batch,omitempty"`
}

// ActionRef names one pending action and the input it was approved for.
type ActionRef struct {
	ActionID string `json:"actionId"`
	ArgsHash string `json:"argsHash"`
}

// MaxBatch bounds the actions one decision covers.
const MaxBatch = 20

// ResolveSignal is the payload of SignalResolve.
type ResolveSignal struct {
	StepID             string `json:"stepId"`
	Decision           string `json:"decision"` // ResolveRetry, ResolveMarkSucceeded or ResolveAbandon
	ExternalResourceID string `json:"externalResourceId,omitempty"`
	By                 string `json:"by"`
}

// RefusalSignal is the payload of SignalRefusal. Only the approval server
// sends it, and only for a decision it authenticated; the run bounds Who and
// Reason before recording them.
type RefusalSignal struct {
	ActionID string `json:"actionId"`
	Who      string `json:"who"`
	Channel  string `json:"channel"` // how the decision arrived: signed API, GitHub comment, web page
	Reason   string `json:"reason"`
}
