package api

import "time"

// Event types.
const (
	EventRunStatus      = "run_status"
	EventStepStatus     = "step_status"
	EventActionState    = "action_state"
	EventSignalIgnored  = "signal_ignored"
	EventContinuedAsNew = "continued_as_new"
	// EventLookalikeIgnored records something a look passed over that
	// carries the step's operation reference but is not the run's own (a
	// comment with the marker by another author, a message with the nonce
	// and other text; ToolOutput.Ignored): it proved nothing and was left
	// alone.
	EventLookalikeIgnored = "lookalike_ignored"
	// EventCancelAccepted records that the run accepted a cancel: who and
	// why are in its detail; the run stops once no action it started is in
	// doubt.
	EventCancelAccepted = "cancel_accepted"
	// EventActionEdited records that an approver edited an action's
	// arguments with the approval: who, and the argsHash before and after.
	EventActionEdited = "action_edited"
	// EventSupersedeEdit records the run's edit of an older run's posted
	// review (RunInput.Supersedes): its status is the SupersedeEdit state,
	// its detail names the older run, the comment and the operation key.
	EventSupersedeEdit = "supersede_edit"
)

// Event is one entry of a run's ordered event stream.
type Event struct {
	Sequence int64     `json:"sequence"`
	At       time.Time `json:"at"`
	Type     string    `json:"type"`
	StepID   string    `json:"stepId,omitempty"`
	Status   string    `json:"status,omitempty"`
	Label    string    `json:"label"`
	// Detail says why, for ignored signals and failures.
	Detail string `json:"detail,omitempty"`
}

// Labels are stable product text, carried in RunSnapshot.Label and
// Event.Label: the UI, the CLI and tests match on them.
const (
	LabelStarting        = "Starting"
	LabelThinking        = "Deciding the next step"
	LabelReadingPR       = "Reading the pull request"
	LabelReadingFiles    = "Reading the changed files"
	LabelWaitingApproval = "Waiting for approval to post a comment"
	LabelPosting         = "Posting the comment"
	LabelReconciling     = "Checking whether the comment was already posted"
	LabelRateLimited     = "Waiting for GitHub's rate limit to reset"
	LabelBackoff         = "Waiting before trying the comment again"
	LabelCannotTell      = "Cannot tell whether the comment was posted; waiting for an operator"
	LabelRejected        = "The comment was rejected"
	LabelExpired         = "The approval expired; nothing was posted"
	LabelDone            = "Done"
	LabelNotDone         = "Finished without doing its task"
	LabelFailed          = "Failed"
	LabelCancelled       = "Cancelled"
	LabelSuperseded      = "Superseded by a newer head; nothing was posted"
	LabelContinuing      = "Continuing in a fresh history"
	// LabelHeld is what a held run's check run shows: the operator's
	// reason ("held by ops: …") stays on the run's page, since a check is
	// public wherever the pull request is.
	LabelHeld = "Held by an operator; nothing is sent until the hold is released"
)

// ToolLabel is the label of a run while it runs a call of spec's tool, in
// the tool's words (ToolWords.Label: "Reading the pull request", "Searching
// merchants"); a tool that gives none reads as "Running NAME".
func ToolLabel(spec ToolSpec) string {
	if spec.Words == (ToolWords{}) {
		return "Running " + spec.Name
	}
	return spec.Words.Or(spec.Name).Label()
}
