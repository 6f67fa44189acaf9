package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestACompletedRunStandsByWhatItDidNeverPlainlyDone(t *testing.T) {
	require.Equal(t, Standing{"completed", "Done"}, StandingOf(RunCompleted, OutcomeComplete))
	require.Equal(t, Standing{"completed", "Done"}, StandingOf(RunCompleted, ""))
	require.Equal(t, Standing{StandingPartial, "Partly done"}, StandingOf(RunCompleted, OutcomePartial))
	require.Equal(t, Standing{StandingNotDone, "Not done"}, StandingOf(RunCompleted, OutcomeNotDone))
	require.Equal(t, Standing{"waiting_for_user", "Waiting for approval"}, StandingOf(RunWaitingForUser, ""))
	require.Equal(t, Standing{"cancelled", "Cancelled"}, StandingOf(RunCancelled, OutcomeNotDone), "only a completed run stands by its outcome")
	require.Equal(t, Standing{"failed", "Failed"}, StandingOf(RunFailed, ""))
}
