package approvalsrv

import (
	"context"
	"errors"

	"github.com/agentrun/agentrun/workflows"
)

// Errors a Runs implementation wraps so that handlers can answer with the
// right status code without knowing about Temporal.
var (
	// ErrRunNotFound: no run has this ID.
	ErrRunNotFound = errors.New("run not found")
	// ErrTemporalUnavailable: Temporal could not be reached or did not answer in time.
	ErrTemporalUnavailable = errors.New("temporal is unavailable")
)

// RunSelection picks which runs ListRunIDs returns.
type RunSelection int

const (
	// RunsWaitingForUser are open runs whose AgentRunStatus is waiting_for_user.
	RunsWaitingForUser RunSelection = iota
)

// Runs is what the approval server needs from Temporal. TemporalRuns is the
// real one; handler tests use a fake.
type Runs interface {
	Snapshot(ctx context.Context, runID string) (workflows.RunSnapshot, error)
	// Events returns the run's events after sinceSequence, in order.
	Events(ctx context.Context, runID string, sinceSequence int64) ([]workflows.Event, error)
	// Ended tells whether the run's workflow is no longer running.
	Ended(ctx context.Context, runID string) (bool, error)
	SignalApproval(ctx context.Context, runID string, sig workflows.ApprovalSignal) error
	SignalResolve(ctx context.Context, runID string, sig workflows.ResolveSignal) error
	// SignalRefusal records in the run a decision the server refused.
	SignalRefusal(ctx context.Context, runID string, sig workflows.RefusalSignal) error
	ListRunIDs(ctx context.Context, sel RunSelection) ([]string, error)
	// RunByActionID finds, in one visibility query, the open or recently
	// closed run whose AgentRunActionIds holds actionID; ErrRunNotFound when
	// none does. actionID must pass checkActionID.
	RunByActionID(ctx context.Context, actionID string) (runID string, err error)
}

// findAction returns the run's action with this ID, whatever its state.
func findAction(snap workflows.RunSnapshot, actionID string) *workflows.PendingAction {
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

// findStep returns the run's step with this ID.
func findStep(snap workflows.RunSnapshot, stepID string) *workflows.AgentStep {
	for i := range snap.Steps {
		if snap.Steps[i].ID == stepID {
			return &snap.Steps[i]
		}
	}
	return nil
}

// runEnded tells whether a run status is final.
func runEnded(status workflows.RunStatus) bool {
	switch status {
	case workflows.RunCompleted, workflows.RunFailed, workflows.RunCancelled:
		return true
	}
	return false
}
