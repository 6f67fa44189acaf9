package api

import (
	"errors"
	"fmt"
	"regexp"
)

// SignalSupersede carries a SupersedeSignal: the pull request a review run
// is on moved past it (a new head) or was closed. The run's waiting
// actions expire with its Reason, an action in flight finishes and
// reconciles as usual, nothing stale is posted, and the run completes.
const SignalSupersede = "supersede"

// SupersedeSignal is sent by the approval server from a verified
// pull_request delivery.
type SupersedeSignal struct {
	// Head is the pull request's new head commit; empty when Closed.
	Head string `json:"head,omitempty"`
	// Closed: the pull request was closed or merged.
	Closed bool `json:"closed,omitempty"`
	// By is the run that took over (the review of Head), if any.
	By string `json:"by,omitempty"`
	// Delivery is the GitHub delivery that said so, for the run's events.
	Delivery string `json:"delivery,omitempty"`
}

var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Validate refuses a signal that names neither a new head nor a close.
func (s SupersedeSignal) Validate() error {
	switch {
	case s.Closed && s.Head != "":
		return errors.New("a supersede names a new head or a close, not both")
	case !s.Closed && !commitID.MatchString(s.Head):
		return errors.New("a supersede names the new head's commit ID (40 hex digits) or a close")
	case len(s.By) > MaxRunIDBytes || len(s.Delivery) > MaxRunIDBytes:
		return errors.New("a supersede's run or delivery ID is too long")
	}
	return nil
}

// Reason is what the superseded run's waiting actions end with: "superseded
// by <sha>" or "pull request closed".
func (s SupersedeSignal) Reason() string {
	if s.Closed {
		return "pull request closed"
	}
	return fmt.Sprintf("superseded by %s", s.Head)
}

// MaxRunIDBytes bounds a run ID a signal names.
const MaxRunIDBytes = 255
