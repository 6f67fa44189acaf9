package api

import "time"

// MaxCancelReasonBytes bounds a cancel's reason on every channel; the run
// refuses a longer one rather than record part of it.
const MaxCancelReasonBytes = 2000

// CancelSignal is the payload of SignalCancel: a person asks the run to
// stop. The run, not the channel, decides whether By may cancel it: the
// requester, one of its approvers, or (when it names none) a writer of its
// repository.
type CancelSignal struct {
	By        string `json:"by"`
	Reason    string `json:"reason"`
	RequestID string `json:"requestId,omitempty"`
	// Channel says how the cancel arrived; with By it scopes RequestID
	// (RequestKey), as a decision's does.
	Channel string `json:"channel,omitempty"`
}

// Cancellation is a cancel the run accepted. The run stops at the next
// point where nothing it started is left in doubt: a waiting action
// expires, an action in flight finishes its attempt and any reconcile.
type Cancellation struct {
	By     string    `json:"by"`
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
	// Superseded: the pull request moved on (SignalSupersede); the run
	// completes rather than ends cancelled, and Reason is what its waiting
	// actions expired with. TakenOverBy is the run that reviews the new head.
	Superseded  bool   `json:"superseded,omitempty"`
	TakenOverBy string `json:"takenOverBy,omitempty"`
	// Head and Closed are the supersede's (SupersedeSignal): what a review
	// the run posted while it was superseded is marked with.
	Head   string `json:"head,omitempty"`
	Closed bool   `json:"closed,omitempty"`
}

// Detail is the cancellation in the run's words, as waiting actions record
// it: a supersede's reason alone ("superseded by <sha>").
func (c Cancellation) Detail() string {
	if c.Superseded {
		return c.Reason
	}
	return "run cancelled by " + c.By + ": " + c.Reason
}

// SupersededBy is GitHub, who a supersede is recorded as coming from.
const SupersededBy = "GitHub"

// CancelledByTemporal is who a cancellation requested through Temporal
// itself (temporal workflow cancel) is recorded as.
const CancelledByTemporal = "a Temporal cancellation request"
