package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

var allStepStatuses = []StepStatus{StepPending, StepWaitingForApproval, StepRunning, StepOutcomeUnknown,
	StepSucceeded, StepFailed, StepRejected, StepExpired, StepSkipped}

var allRunStatuses = []RunStatus{RunRunning, RunWaitingForUser, RunReconciling, RunCompleted, RunFailed, RunCancelled}

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

// StepStatus.IsTerminal lists the final statuses by hand, so that it needs
// no table; this holds the two together.
func TestStepIsTerminalExactlyWhenTheLifecycleAllowsNoMove(t *testing.T) {
	for s, next := range stepTransitions {
		require.Equal(t, len(next) == 0, s.IsTerminal(), "step status %s", s)
	}
}
