package workflows

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// TestAnActionRemembersAtMost100RequestKeys: the requestIds an action
// remembers are bounded; a repeat of a remembered one is still recognised.
func TestAnActionRemembersAtMost100RequestKeys(t *testing.T) {
	pa := &api.PendingAction{}
	for i := 0; i < maxRequestIDs+1; i++ {
		require.True(t, remember(pa, fmt.Sprintf("key-%d", i)))
	}
	require.Len(t, pa.RequestKeys, maxRequestIDs)
	require.False(t, remember(pa, "key-99"), "the 100th key is remembered")
	require.True(t, remember(pa, "key-100"), "the 101st was not kept, so it counts as new")
}
