package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestUnknownCommandSuggestsTheNearestOneAndExits2(t *testing.T) {
	r := starterWith(noServer, "aprove", "r1")

	require.Equal(t, 2, r.code)
	want, err := os.ReadFile(filepath.Join("testdata", "unknown_command.golden"))
	require.NoError(t, err)
	require.Equal(t, string(want), r.stderr, "the usage changed: update testdata/unknown_command.golden")
}

func TestTyposOfACommandSuggestItAndUnrelatedWordsSuggestNothing(t *testing.T) {
	cases := map[string]string{
		"aprove":  "approve",
		"approev": "approve",
		"Approve": "approve",
		"stauts":  "status",
		"lsit":    "list",
		"ls":      "list",
		"evnets":  "events",
		"rejct":   "reject",
		"resolv":  "resolve",
		"strat":   "start",
		"launch":  "",
		"x":       "",
		"delete":  "",
	}
	for typed, want := range cases {
		t.Run(typed, func(t *testing.T) {
			require.Equal(t, want, nearestCommand(typed, commandNames()))
		})
	}
}

func TestEveryListedCommandExists(t *testing.T) {
	for _, name := range commandNames() {
		_, ok := newCommand(name, nil)
		require.True(t, ok, name)
		require.Contains(t, usage, "  "+name+" ", "usage lists %s", name)
	}
}

func TestEditDistanceCountsASwapOfNeighboursAsOneEdit(t *testing.T) {
	require.Equal(t, 0, editDistance("list", "list"))
	require.Equal(t, 1, editDistance("lsit", "list"))
	require.Equal(t, 1, editDistance("aprove", "approve"))
	require.Equal(t, 2, editDistance("", "ls"))
	require.Equal(t, 3, editDistance("kitten", "sitting"))
}
