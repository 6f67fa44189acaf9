package api

// Outcome is what a run did, for people: what it posted, what people
// rejected or let expire, and what failed. It is derived from the steps and
// actions, so every run has one, however old.
type Outcome struct {
	// Summary is one line, e.g. "Posted 1 comment on acme/widgets#1".
	Summary  string            `json:"summary"`
	Posted   []PostedOutcome   `json:"posted,omitempty"`
	Declined []DeclinedOutcome `json:"declined,omitempty"`
	Failed   []FailedOutcome   `json:"failed,omitempty"`
}

// PostedOutcome is a comment the run posted (or found already posted).
type PostedOutcome struct {
	StepID   string `json:"stepId"`
	ActionID string `json:"actionId,omitempty"`
	Target   string `json:"target"` // owner/name#number
	// CommentID and URL are GitHub's; URL is empty when an operator marked
	// the step succeeded without one.
	CommentID  int64  `json:"commentId,omitempty"`
	URL        string `json:"url,omitempty"`
	ApprovedBy string `json:"approvedBy,omitempty"`
}

// DeclinedOutcome is a gated action that was not taken: rejected by a
// person, or expired (also when the run was cancelled while it waited).
type DeclinedOutcome struct {
	StepID   string      `json:"stepId"`
	ActionID string      `json:"actionId"`
	Target   string      `json:"target"`
	State    ActionState `json:"state"` // rejected or expired
	By       string      `json:"by,omitempty"`
	Reason   string      `json:"reason,omitempty"`
}

// FailedOutcome is a step that failed, or the run itself (StepID empty).
type FailedOutcome struct {
	StepID string `json:"stepId,omitempty"`
	// What names it: a tool name, "model_call", or "run".
	What  string `json:"what"`
	Error string `json:"error"`
}
