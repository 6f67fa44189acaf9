package api

// Standing is how a run stands for a person: a key a view colours by and
// the words it shows. A completed run stands by what it did (Run.Outcome):
// a run that did only part of its task, or none of it, is never shown as
// plainly done. This is the one mapping; the run page and its history use
// it.
type Standing struct {
	Key   string
	Words string
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
		return Standing{string(status), "Running"}
	case RunWaitingForUser:
		return Standing{string(status), "Waiting for approval"}
	case RunReconciling:
		return Standing{string(status), "Reconciling"}
	case RunCompleted:
		switch outcome {
		case OutcomePartial:
			return Standing{StandingPartial, "Partly done"}
		case OutcomeNotDone:
			return Standing{StandingNotDone, "Not done"}
		}
		return Standing{string(status), "Done"}
	case RunFailed:
		return Standing{string(status), "Failed"}
	case RunCancelled:
		return Standing{string(status), "Cancelled"}
	}
	return Standing{string(status), string(status)}
}
