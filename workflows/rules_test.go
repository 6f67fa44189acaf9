package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestSameLoginFoldsASCIICaseOnly(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"alice", "alice", true},
		{"alice", "ALICE", true},
		{"Octo-Cat", "octo-cat", true},
		{"alice", "ali", false},
		{"ali", "alice", false},
		{"alice", "alice2", false},
		{"sam", "ſam", false},        // U+017F folds to s under Unicode rules
		{"kate", "\u212Aate", false}, // the Kelvin sign folds to k under Unicode rules
		{"", "", true},
	} {
		require.Equal(t, tc.same, api.SameLogin(tc.a, tc.b), "%q vs %q", tc.a, tc.b)
	}
}

func TestResolveAppliesOnlyToTheStepTheRunWaitsOn(t *testing.T) {
	waiting := api.RunSnapshot{AwaitingResolve: "step-5"}
	require.True(t, api.ResolveApplies(waiting, "step-5"))
	require.False(t, api.ResolveApplies(waiting, "step-4"))
	require.False(t, api.ResolveApplies(waiting, ""))
	require.False(t, api.ResolveApplies(api.RunSnapshot{}, ""), "a run that waits on nothing takes no resolve")
	require.False(t, api.ResolveApplies(api.RunSnapshot{}, "step-5"))
}
