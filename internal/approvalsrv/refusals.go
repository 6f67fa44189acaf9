package approvalsrv

import (
	"sort"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
)

// channelRun names, on the page, refusals read back from the run's events.
const channelRun = "recorded in the run"

// channelLookalike names, on the page, a comment the run ignored because it
// carries the run's marker without being the run's own.
const channelLookalike = "look-alike comment ignored"

// pageRefusals lists, newest first and at most PerRun of them, what
// the run recorded as ignored (refusals this or an earlier server process
// signalled, decisions the workflow itself turned down, and look-alike
// comments reconciliation left alone) together with
// the refusals this process kept but could not record in the run.
func (s *Pages) pageRefusals(runID string, snap api.RunSnapshot, events []api.Event) []Refusal {
	var out []Refusal
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		switch ev.Type {
		case api.EventSignalIgnored:
			out = append(out, Refusal{At: ev.At.UTC(), Channel: channelRun, ActionID: actionIDOfStep(snap, ev.StepID),
				Reason: ev.Detail, Step: stepTitleByID(snap, ev.StepID)})
		case api.EventLookalikeIgnored:
			// A comment that only looks like the run's own proved nothing;
			// people should know someone tried.
			out = append(out, Refusal{At: ev.At.UTC(), Channel: channelLookalike, Reason: ev.Detail, Step: stepTitleByID(snap, ev.StepID)})
		}
	}
	kept := s.opts.Refusals.Since(runID, 0)
	for i := len(kept) - 1; i >= 0; i-- {
		if !kept[i].Recorded {
			out = append(out, kept[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	if len(out) > PerRun {
		out = out[:PerRun]
	}
	return out
}

func actionIDOfStep(snap api.RunSnapshot, stepID string) string {
	if stepID == "" {
		return ""
	}
	for _, a := range snap.Actions {
		if a.StepID == stepID {
			return a.ID
		}
	}
	return ""
}

// stepTitleByID is the title of the step an event names; "" when the run no
// longer shows that step (or the event names none).
func stepTitleByID(snap api.RunSnapshot, stepID string) string {
	if st := stepIn(snap, stepID); st != nil {
		return runview.StepTitle(*st)
	}
	return ""
}
