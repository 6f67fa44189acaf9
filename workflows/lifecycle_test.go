package workflows

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
			err := checkStepTransition(from, to)
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
	require.Error(t, checkStepTransition(StepSucceeded, StepRunning), "a succeeded step never runs again")
	require.Error(t, checkStepTransition(StepWaitingForApproval, StepOutcomeUnknown))
	require.Error(t, checkStepTransition("bogus", StepRunning))
}

func TestRunTransitionTable(t *testing.T) {
	require.Len(t, runTransitions, len(allRunStatuses))
	for _, s := range []RunStatus{RunCompleted, RunFailed, RunCancelled} {
		require.True(t, s.IsTerminal())
		for _, to := range allRunStatuses {
			require.Error(t, checkRunTransition(s, to), "%s is final", s)
		}
	}
	require.NoError(t, checkRunTransition(RunRunning, RunWaitingForUser))
	require.NoError(t, checkRunTransition(RunReconciling, RunRunning))
	require.Error(t, checkRunTransition(RunWaitingForUser, RunReconciling))
	require.Error(t, checkRunTransition(RunWaitingForUser, RunCompleted), "a run never completes while a person is asked")
}

func TestIllegalStepChangePanicsSoTheTaskFails(t *testing.T) {
	s := &runState{}
	st := &AgentStep{ID: "step-1", Status: StepSucceeded}
	require.PanicsWithError(t, "illegal step transition succeeded -> running", func() {
		s.setStepStatus(nil, st, StepRunning, "")
	})
}
