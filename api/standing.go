package api

import "strings"

// Standing is how a run stands for a person: a key a view colours by and
// the words it shows. A completed run stands by what it did (Run.Outcome):
// a run that did only part of its task, or none of it, is never shown as
// plainly done. This is the one mapping; the run page and its history use
// it.
type Standing struct {
	Key   string `json:"key"`
	Words string `json:"words"`
	// Detail is why, in one line (StandingOfRun); empty from StandingOf.
	Detail string `json:"detail,omitempty"`
}

// Standing keys beyond the run statuses themselves.
const (
	StandingPartial = "partial"
	StandingNotDone = "not_done"
)

// StandingOf is the standing of a run with status and, once completed,
// outcome (Run.Outcome; empty when not known).
func StandingOf(status RunStatus, outcome string) Standing {
	switch status {
	case RunRunning:
		return Standing{Key: string(status), Words: "Running"}
	case RunWaitingForUser:
		return Standing{Key: string(status), Words: "Waiting for approval"}
	case RunReconciling:
		return Standing{Key: string(status), Words: "Reconciling"}
	case RunCompleted:
		switch outcome {
		case OutcomePartial:
			return Standing{Key: StandingPartial, Words: "Partial"}
		case OutcomeNotDone:
			return Standing{Key: StandingNotDone, Words: "Not done"}
		}
		return Standing{Key: string(status), Words: "Done"}
	case RunFailed:
		return Standing{Key: string(status), Words: "Failed"}
	case RunCancelled:
		return Standing{Key: string(status), Words: "Cancelled"}
	}
	return Standing{Key: string(status), Words: string(status)}
}

// StandingSentBack is the standing of a completed run whose action a
// person sent back with feedback, and that proposed nothing after it.
const StandingSentBack = "sent_back"

// StandingOfRun is how a run stands with what it did (its snapshot's
// Outcome) and, once cancelled, who stopped it and why. Detail says why in
// one line: the tool that failed in a partial run, the person who rejected
// or sent back its action, who cancelled it. The run page, the inbox, the
// history, `starter status` and the Temporal UI's details all say this.
func StandingOfRun(snap RunSnapshot) Standing {
	return StandingOfOutcome(snap.Run, snap.Outcome, snap.Cancel)
}

// StandingOfOutcome is StandingOfRun from its parts, for the run itself.
func StandingOfOutcome(run Run, o Outcome, cancel *Cancellation) Standing {
	s := StandingOf(run.Status, run.Outcome)
	switch run.Status {
	case RunFailed:
		s.Detail = run.Error
	case RunCancelled:
		if cancel != nil {
			s.Words, s.Detail = "Cancelled by "+cancel.By, cancel.Reason
		}
	case RunCompleted:
		failed := failedTools(o)
		switch {
		case len(o.Posted) > 0 && (run.Outcome == OutcomePartial || len(failed) > 0):
			s = Standing{Key: StandingPartial, Words: "Partial", Detail: strings.Join(failed, "; ")}
		case len(o.Posted) == 0 && len(o.Declined) > 0:
			d := o.Declined[len(o.Declined)-1]
			s = Standing{Key: StandingNotDone, Detail: d.Reason}
			switch {
			case d.Feedback:
				s.Key, s.Words = StandingSentBack, "Sent back by "+d.By
			case d.State == ActionRejected:
				s.Words = "Rejected by " + d.By
			default:
				s.Words, s.Detail = "Expired", "no decision in time"
			}
		case run.Outcome == OutcomePartial:
			s.Detail = strings.Join(failed, "; ")
		case run.Outcome == OutcomeNotDone:
			s.Detail = TruncateUTF8(run.Result, 200)
		}
	}
	return s
}

// failedTools name each failed step of o and why: "get_coupons failed
// (coupons unavailable)".
func failedTools(o Outcome) []string {
	var out []string
	for _, f := range o.Failed {
		if f.StepID != "" {
			out = append(out, f.What+" failed ("+TruncateUTF8(f.Error, 200)+")")
		}
	}
	return out
}

// DeclinedWords say what became of an action that was not done, for every
// view: "sent back with feedback by bob: shorter", "rejected by bob: too
// harsh", "not decided: run cancelled by alice: wrong PR" (never "expired"
// for a cancel), "expired without a decision". cancel is the run's.
func DeclinedWords(d DeclinedOutcome, cancel *Cancellation) string {
	with := func(s string) string {
		if d.Reason == "" {
			return s
		}
		return s + ": " + d.Reason
	}
	switch {
	case d.Feedback:
		return with("sent back with feedback by " + d.By)
	case d.State == ActionRejected:
		return with("rejected by " + d.By)
	case cancel != nil && d.Reason == cancel.Detail():
		return "not decided: " + cancel.Detail()
	}
	return "expired without a decision"
}
