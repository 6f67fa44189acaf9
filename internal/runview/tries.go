package runview

import (
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"

	"github.com/agentrun/agentrun/api"
)

// Try is Temporal's view of a step's activity while it is being retried.
// The run records a step's outcome, not each try of its activity, so a read
// that keeps failing shows as running, attempt 1, no error, until Temporal
// gives up; only the server's pending-activity record knows the tries.
type Try struct {
	// Attempt is the try under way or scheduled, from 1.
	Attempt int32
	// LastError is how the previous try failed.
	LastError string
	// NextAt is when the next try starts, while Temporal waits to retry.
	NextAt time.Time
}

// TriesByStep gives the step in flight the tries of the activity in flight,
// when a try has failed. A run does one thing at a time, so one unfinished
// step and one pending activity belong together; anything else is left
// unmatched rather than guessed (the activity's type names a Go method, not
// a tool, and the step records no activity ID).
func TriesByStep(steps []api.AgentStep, pending []*workflowpb.PendingActivityInfo) map[string]Try {
	var inFlight []api.AgentStep
	for _, st := range steps {
		if st.Status == api.StepRunning || st.Status == api.StepOutcomeUnknown {
			inFlight = append(inFlight, st)
		}
	}
	if len(inFlight) != 1 || len(pending) != 1 {
		return nil
	}
	p := pending[0]
	if p.GetAttempt() <= 1 && p.GetLastFailure() == nil {
		return nil
	}
	try := Try{Attempt: p.GetAttempt(), LastError: oneLine(p.GetLastFailure().GetMessage())}
	if next := p.GetNextAttemptScheduleTime(); next != nil {
		try.NextAt = next.AsTime()
	}
	return map[string]Try{inFlight[0].ID: try}
}
