package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestIllegalStepChangePanicsSoTheTaskFails(t *testing.T) {
	s := &runState{}
	st := &api.AgentStep{ID: "step-1", Status: api.StepSucceeded}
	require.PanicsWithError(t, "illegal step transition succeeded -> running", func() {
		s.setStepStatus(nil, st, api.StepRunning, "")
	})
}
