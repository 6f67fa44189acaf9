package api

import "fmt"

// The Checkpoint is a run's state (the workflow keeps its state in one);
// these read it for the run query and the workflow's own decisions.

// ActionByID is the run's action with this ID, or nil.
func (cp *Checkpoint) ActionByID(id string) *PendingAction {
	for _, pa := range cp.Actions {
		if pa.ID == id {
			return pa
		}
	}
	return nil
}

// ActionForStep is the newest action of a gated step, or nil.
func (cp *Checkpoint) ActionForStep(stepID string) *PendingAction {
	for i := len(cp.Actions) - 1; i >= 0; i-- {
		if cp.Actions[i].StepID == stepID {
			return cp.Actions[i]
		}
	}
	return nil
}

// ModelCalls counts the run's model_call steps.
func (cp *Checkpoint) ModelCalls() int {
	n := 0
	for _, st := range cp.Steps {
		if st.Type == StepModelCall {
			n++
		}
	}
	return n
}

// Snapshot copies the state for the run query; the history's length and
// threshold come from the workflow.
func (cp *Checkpoint) Snapshot(historyLength, historyThreshold int) RunSnapshot {
	snap := RunSnapshot{
		Run:     cp.Run,
		Actions: make([]PendingAction, 0, len(cp.Actions)),
		Label:   cp.Label,
		// The resolve rule (ResolveApplies) reads this, not the label.
		AwaitingResolve: cp.AwaitingResolve,
		Checkpoint: CheckpointView{
			Generation:         cp.Run.Generation,
			StepSequence:       cp.StepSequence,
			EventSequence:      cp.EventSequence,
			ConversationLength: len(cp.Conversation),
			HistoryLength:      historyLength,
			HistoryThreshold:   historyThreshold,
		},
	}
	snap.Outcome = cp.Outcome()
	newest := cp.StepsPage(StepPage{From: len(cp.Steps) - SnapshotSteps})
	snap.Steps, snap.StepsFrom, snap.StepCount = newest.Steps, newest.From, newest.StepCount
	for _, pa := range cp.Actions {
		snap.Actions = append(snap.Actions, *pa)
	}
	if n := len(snap.Actions); n > 0 {
		last := snap.Actions[n-1]
		snap.PendingAction = &last
	}
	return snap
}

// EventsSince returns the events after a sequence number, in order.
func (cp *Checkpoint) EventsSince(since int64) []Event {
	out := []Event{}
	for _, e := range cp.Events {
		if e.Sequence > since {
			out = append(out, e)
		}
	}
	return out
}

// TargetRef names the run's pull request, e.g. "acme/widgets#1".
func (r Run) TargetRef() string {
	return fmt.Sprintf("%s#%d", r.Repo, r.PullNumber)
}
