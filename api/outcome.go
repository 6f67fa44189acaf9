package api

import (
	"fmt"
	"time"
)

// Outcome is what a run did, for people: what it posted, what people
// rejected or let expire, and what failed. It is derived from the steps and
// actions, so every run has one, however old.
type Outcome struct {
	// Summary is one line, e.g. "Posted 1 comment on acme/widgets#1".
	Summary  string            `json:"summary"`
	Posted   []PostedOutcome   `json:"posted,omitempty"`
	Declined []DeclinedOutcome `json:"declined,omitempty"`
	Failed   []FailedOutcome   `json:"failed,omitempty"`
	// SupersededReviews are the posted reviews this run marked superseded
	// (an older run's, or its own), as the run recorded each edit.
	SupersededReviews []SupersedeEdit `json:"supersededReviews,omitempty"`
}

// PostedOutcome is an action the run did (or found already done).
type PostedOutcome struct {
	StepID   string `json:"stepId"`
	ActionID string `json:"actionId,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Target   string `json:"target"` // what it touched (PendingAction.Target), or the run's target (Run.TargetName)
	// ExternalID names what it made (a comment ID, an issue number); URL
	// is where people see it, empty when the tool or an operator's
	// mark_succeeded gave none. CommentID is a comment's ExternalID.
	ExternalID string `json:"externalId,omitempty"`
	CommentID  int64  `json:"commentId,omitempty"`
	URL        string `json:"url,omitempty"`
	ApprovedBy string `json:"approvedBy,omitempty"`
	// EditedBy is who edited the action's arguments with the approval:
	// what was done is their version, not the model's.
	EditedBy string `json:"editedBy,omitempty"`
	// Made says what was done in the tool's words: "created ticket", to
	// be followed by ExternalID; "found message" for an effect a look
	// found (Effect).
	Made string `json:"made,omitempty"`
	// Effect is the step's (AgentStep.Effect): made by the run's attempt,
	// found made before (AlreadyDone says why nothing was sent again), or
	// marked done by an operator.
	Effect      StepEffect `json:"effect,omitempty"`
	AlreadyDone string     `json:"alreadyDone,omitempty"`
}

// MaxPostedInMemo bounds PostedComments: a memo is copied into visibility
// and is capped in size, and what it serves needs only the last comment.
const MaxPostedInMemo = 5

// PostedComments are the comments of posted (those with a CommentID), the
// last MaxPostedInMemo of them: a run's MemoPosted.
func PostedComments(posted []PostedOutcome) []PostedOutcome {
	out := []PostedOutcome{}
	for _, p := range posted {
		if p.CommentID > 0 {
			out = append(out, p)
		}
	}
	if len(out) > MaxPostedInMemo {
		out = out[len(out)-MaxPostedInMemo:]
	}
	return out
}

// DeclinedOutcome is a gated action that was not taken: rejected by a
// person, or expired (also when the run was cancelled while it waited).
type DeclinedOutcome struct {
	StepID   string      `json:"stepId"`
	ActionID string      `json:"actionId"`
	Tool     string      `json:"tool,omitempty"`
	Target   string      `json:"target"`
	State    ActionState `json:"state"` // rejected or expired
	By       string      `json:"by,omitempty"`
	Reason   string      `json:"reason,omitempty"`
	// Feedback: By answered the action with feedback (Reason) instead of
	// a decision, for the model to propose again.
	Feedback bool `json:"feedback,omitempty"`
	// Noun is what the action would have made, in its tool's words.
	Noun string `json:"noun,omitempty"`
}

// FailedOutcome is a step that failed, or the run itself (StepID empty).
type FailedOutcome struct {
	StepID string `json:"stepId,omitempty"`
	// What names it: a tool name, "model_call", or "run".
	What  string `json:"what"`
	Error string `json:"error"`
}

// HumanDuration writes a duration for people, to the unit that matters:
// "3d 2h", "23h", "2h 30m", "45m", "30s". Days start at two, so that a
// day-long approval reads "24h left", not "1d left".
func HumanDuration(d time.Duration) string {
	if d <= 0 {
		return "0s"
	}
	hours, minutes := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case hours >= 48 && hours%24 > 0:
		return fmt.Sprintf("%dd %dh", hours/24, hours%24)
	case hours >= 48:
		return fmt.Sprintf("%dd", hours/24)
	case hours >= 10 || (hours > 0 && minutes == 0):
		return fmt.Sprintf("%dh", hours)
	case hours > 0:
		return fmt.Sprintf("%dh %dm", hours, minutes)
	case minutes > 0:
		return fmt.Sprintf("%dm", minutes)
	default:
		return fmt.Sprintf("%ds", max(int(d/time.Second), 1))
	}
}
