package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var allStepStatuses = []StepStatus{StepPending, StepWaitingForApproval, StepRunning, StepOutcomeUnknown,
	StepSucceeded, StepFailed, StepRejected, StepExpired, StepSkipped}

var allRunStatuses = RunStatuses()

// The design card names the run statuses; messages list them in its order.
func TestRunStatusesAreTheDesignCardsSixInItsOrderAndTheLifecycleTablesRows(t *testing.T) {
	var names []string
	for _, s := range RunStatuses() {
		names = append(names, string(s))
		require.True(t, s.Known(), s)
	}
	require.Equal(t, []string{"running", "waiting_for_user", "reconciling", "completed", "failed", "cancelled"}, names)
	require.Len(t, runTransitions, len(names), "the lifecycle table has a row for each and no other")
	require.False(t, RunStatus("terminated").Known())
}

func TestStepTransitionTableIsTheOnlyWayToMove(t *testing.T) {
	require.Len(t, stepTransitions, len(allStepStatuses), "every status has a row")
	for _, from := range allStepStatuses {
		for _, to := range allStepStatuses {
			err := CheckStepTransition(from, to)
			allowed := false
			for _, s := range stepTransitions[from] {
				allowed = allowed || s == to
			}
			if allowed {
				require.NoError(t, err, "%s -> %s", from, to)
			} else {
				require.Error(t, err, "%s -> %s", from, to)
				var ite *IllegalTransitionError
				require.ErrorAs(t, err, &ite)
			}
		}
	}
	require.Error(t, CheckStepTransition(StepSucceeded, StepRunning), "a succeeded step never runs again")
	require.Error(t, CheckStepTransition(StepWaitingForApproval, StepOutcomeUnknown))
	require.Error(t, CheckStepTransition("bogus", StepRunning))
}

func TestRunTransitionTable(t *testing.T) {
	require.Len(t, runTransitions, len(allRunStatuses))
	for _, s := range []RunStatus{RunCompleted, RunFailed, RunCancelled} {
		require.True(t, s.IsTerminal())
		for _, to := range allRunStatuses {
			require.Error(t, CheckRunTransition(s, to), "%s is final", s)
		}
	}
	require.NoError(t, CheckRunTransition(RunRunning, RunWaitingForUser))
	require.NoError(t, CheckRunTransition(RunReconciling, RunRunning))
	require.Error(t, CheckRunTransition(RunWaitingForUser, RunReconciling))
	require.Error(t, CheckRunTransition(RunWaitingForUser, RunCompleted), "a run never completes while a person is asked")
}

// IsTerminal is read from the tables; this holds the tables to the
// statuses that are final by design, and to nothing else.
func TestOnlyTheFinalStatusesAreTerminal(t *testing.T) {
	finalSteps := map[StepStatus]bool{StepSucceeded: true, StepFailed: true, StepRejected: true, StepExpired: true, StepSkipped: true}
	for _, s := range allStepStatuses {
		require.Equal(t, finalSteps[s], s.IsTerminal(), "step status %s", s)
	}
	finalRuns := map[RunStatus]bool{RunCompleted: true, RunFailed: true, RunCancelled: true}
	for _, s := range allRunStatuses {
		require.Equal(t, finalRuns[s], s.IsTerminal(), "run status %s", s)
	}
	require.False(t, StepStatus("bogus").IsTerminal(), "an unknown step status is not final")
	require.False(t, RunStatus("bogus").IsTerminal(), "an unknown run status is not final")
}

// An action is decided once: waiting moves to approved, rejected or
// expired, and nothing moves on from those.
func TestAnActionIsDecidedOnce(t *testing.T) {
	states := []ActionState{ActionWaiting, ActionApproved, ActionRejected, ActionExpired}
	for _, from := range states {
		for _, to := range states {
			err := CheckActionTransition(from, to)
			if from == ActionWaiting && to != ActionWaiting {
				require.NoError(t, err, "%s -> %s", from, to)
				continue
			}
			require.EqualError(t, err, "illegal action transition "+string(from)+" -> "+string(to))
		}
	}
	require.EqualError(t, CheckActionTransition("paused", ActionApproved), "illegal action transition paused -> approved", "an unknown state moves nowhere")
}
