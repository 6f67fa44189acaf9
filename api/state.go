package api

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

// TargetName is the run's target as people read it, the one function every
// view calls: the label the run recorded from its agent's declaration
// (Run.TargetLabel), else the target's own (Target.Label). A run that names
// no valid target gives its repository, or "".
func (r Run) TargetName() string {
	if r.TargetLabel != "" {
		return r.TargetLabel
	}
	if r.Target != nil {
		return r.Target.Label()
	}
	if t, err := ParseTarget(r.Repo, r.PullNumber); err == nil {
		return t.Label()
	}
	return r.Repo
}
