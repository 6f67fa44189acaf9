package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// api.StepStatus.IsTerminal lists the final statuses by hand, because the api
// package cannot see the lifecycle table; this holds the two together.
func TestStepIsTerminalExactlyWhenTheLifecycleAllowsNoMove(t *testing.T) {
	for s, next := range stepTransitions {
		require.Equal(t, len(next) == 0, s.IsTerminal(), "step status %s", s)
	}
}
