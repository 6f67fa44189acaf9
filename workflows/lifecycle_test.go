package workflows

import (
	"testing"

	"github.com/agentrun/agentrun/api"
	"github.com/stretchr/testify/require"
)

var allStepStatuses = []api.StepStatus{api.StepPending, api.StepWaitingForApproval, api.StepRunning, api.StepOutcomeUnknown,
	api.StepSucceeded, api.StepFailed, api.StepRejected, api.StepExpired, api.StepSkipped}

var allRunStatuses = []api.RunStatus{api.RunRunning, api.RunWaitingForUser, api.RunReconciling, api.RunCompleted, api.RunFailed, api.RunCancelled}

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
	require.Error(t, checkStepTransition(api.StepSucceeded, api.StepRunning), "a succeeded step never runs again")
	require.Error(t, checkStepTransition(api.StepWaitingForApproval, api.StepOutcomeUnknown))
	require.Error(t, checkStepTransition("bogus", api.StepRunning))
}

func TestRunTransitionTable(t *testing.T) {
	require.Len(t, runTransitions, len(allRunStatuses))
	for _, s := range []api.RunStatus{api.RunCompleted, api.RunFailed, api.RunCancelled} {
		require.True(t, s.IsTerminal())
		for _, to := range allRunStatuses {
			require.Error(t, checkRunTransition(s, to), "%s is final", s)
		}
	}
	require.NoError(t, checkRunTransition(api.RunRunning, api.RunWaitingForUser))
	require.NoError(t, checkRunTransition(api.RunReconciling, api.RunRunning))
	require.Error(t, checkRunTransition(api.RunWaitingForUser, api.RunReconciling))
	require.Error(t, checkRunTransition(api.RunWaitingForUser, api.RunCompleted), "a run never completes while a person is asked")
}

func TestIllegalStepChangePanicsSoTheTaskFails(t *testing.T) {
	s := &runState{}
	st := &api.AgentStep{ID: "step-1", Status: api.StepSucceeded}
	require.PanicsWithError(t, "illegal step transition succeeded -> running", func() {
		s.setStepStatus(nil, st, api.StepRunning, "")
	})
}
