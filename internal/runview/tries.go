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

// TriesByStep gives each step in flight the tries of its activity, when a
// try has failed. A run since the tool registry names each activity after
// its step (api.StepOfActivity); for an older run, one unfinished step and
// one pending activity belong together, and anything else is left
// unmatched rather than guessed.
func TriesByStep(steps []api.AgentStep, pending []*workflowpb.PendingActivityInfo) map[string]Try {
	var inFlight []api.AgentStep
	for _, st := range steps {
		if st.Status == api.StepRunning || st.Status == api.StepOutcomeUnknown {
			inFlight = append(inFlight, st)
		}
	}
	tries := map[string]Try{}
	for _, p := range pending {
		step := api.StepOfActivity(p.GetActivityId())
		if step == "" && len(inFlight) == 1 && len(pending) == 1 {
			step = inFlight[0].ID
		}
		if step == "" || (p.GetAttempt() <= 1 && p.GetLastFailure() == nil) {
			continue
		}
		try := Try{Attempt: p.GetAttempt() + api.TriesBefore(p.GetActivityId()), LastError: OneLine(p.GetLastFailure().GetMessage())}
		if next := p.GetNextAttemptScheduleTime(); next != nil {
			try.NextAt = next.AsTime()
		}
		tries[step] = try
	}
	if len(tries) == 0 {
		return nil
	}
	return tries
}
