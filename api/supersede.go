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

// The earlier posted review is marked superseded: the run that takes over
// edits the summary line (the first line) of the older run's posted
// review comment, so that a reader of the pull request sees at once which
// review is current. The edit is a side effect with its own reconcile: the
// final body is a function of the body the comment has (marking a marked
// body changes nothing), so the edit reads the comment first and a comment
// that already shows the final body is found, not edited again; a retry
// after a lost answer finds it. It only ever edits a comment that proves
// itself the older run's: written by this worker's GitHub identity and
// carrying that run's operation marker, on the same pull request.

// ActivityMarkSuperseded takes a MarkSupersededRequest and returns a
// MarkSupersededResult.
const ActivityMarkSuperseded = "MarkSuperseded"

// SupersededReview names an older run's posted review comment.
type SupersededReview struct {
	// Run is the older run; CommentID its posted review comment.
	Run       string `json:"run"`
	CommentID int64  `json:"commentId"`
}

// Validate refuses a reference that names no run or no comment.
func (r *SupersededReview) Validate() error {
	switch {
	case r == nil:
		return nil
	case r.Run == "" || len(r.Run) > MaxRunIDBytes:
		return errors.New("supersedes: names no older run (or a run ID past 255 bytes)")
	case r.CommentID <= 0:
		return errors.New("supersedes: names no posted review comment")
	}
	return nil
}

// MarkSupersededRequest asks for the edit of Review's comment on Target:
// its summary line says it is superseded by Head (or that the pull request
// closed) and that run By took over.
type MarkSupersededRequest struct {
	Target       Target           `json:"target"`
	Review       SupersededReview `json:"review"`
	Head         string           `json:"head,omitempty"`
	Closed       bool             `json:"closed,omitempty"`
	By           string           `json:"by,omitempty"`
	OperationKey string           `json:"operationKey"`
}

// MarkSupersededResult says whether the comment already read as superseded
// (Found: nothing was sent) and where it is.
type MarkSupersededResult struct {
	Found bool   `json:"found,omitempty"`
	URL   string `json:"url,omitempty"`
}

// SupersedeEdit states of a run's edit of an older review.
const (
	SupersedeEditSending = "sending"
	SupersedeEditEdited  = "edited"
	SupersedeEditFound   = "found"
	SupersedeEditFailed  = "failed"
)

// SupersedeEdit is a run's edit marking a posted review superseded by
// Head (or Closed) with By taking over, recorded (with its operation key)
// before the edit is sent.
type SupersedeEdit struct {
	OperationKey string           `json:"operationKey"`
	Review       SupersededReview `json:"review"`
	Head         string           `json:"head,omitempty"`
	Closed       bool             `json:"closed,omitempty"`
	By           string           `json:"by,omitempty"`
	State        string           `json:"state"`
	URL          string           `json:"url,omitempty"`
	Error        string           `json:"error,omitempty"`
}

// SupersedeEditKey is the operation key of run's edit of comment.
func SupersedeEditKey(run string, comment int64) string {
	return fmt.Sprintf("%s:supersede-edit:%d", run, comment)
}
