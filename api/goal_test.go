package api

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckGoalRefusesWhatCouldFloodOrBreakThePrompt(t *testing.T) {
	require.NoError(t, CheckGoal(""))
	require.NoError(t, CheckGoal(strings.Repeat("é", MaxGoalBytes/2)))
	for _, bad := range []string{strings.Repeat("x", MaxGoalBytes+1), "a\nb", "nul\x00", "bad \xff"} {
		require.Error(t, CheckGoal(bad), "%q", bad)
	}
}
