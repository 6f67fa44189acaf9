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

// TargetRef names the run's target, e.g. "acme/widgets#1".
func (r Run) TargetRef() string {
	if r.Target != nil {
		return r.Target.Ref()
	}
	return fmt.Sprintf("%s#%d", r.Repo, r.PullNumber)
}
