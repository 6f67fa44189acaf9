package approvalsrv

import "github.com/agentrun/agentrun/api"

// Action returns the run's action with this ID, whatever its state: what a
// decision names.
func actionIn(snap api.RunSnapshot, actionID string) *api.PendingAction {
	if p := snap.PendingAction; p != nil && p.ID == actionID {
		return p
	}
	for i := range snap.Actions {
		if snap.Actions[i].ID == actionID {
			return &snap.Actions[i]
		}
	}
	return nil
}

// Step returns the run's step with this ID: what a resolve names.
func stepIn(snap api.RunSnapshot, stepID string) *api.AgentStep {
	for i := range snap.Steps {
		if snap.Steps[i].ID == stepID {
			return &snap.Steps[i]
		}
	}
	return nil
}
