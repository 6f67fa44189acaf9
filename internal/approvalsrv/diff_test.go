package approvalsrv

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLineDiffKeepsCommonLinesAndMarksTheRest(t *testing.T) {
	require.Equal(t, []diffLine{{" ", "a"}, {"-", "b"}, {"+", "B"}, {" ", "c"}}, lineDiff("a\nb\nc", "a\nB\nc"))
	require.Equal(t, []diffLine{{" ", "same"}}, lineDiff("same", "same"))
	long := strings.Repeat("x\n", maxDiffLines+1)
	lines := lineDiff(long, "y")
	require.Len(t, lines, maxDiffLines+3, "past the bound: all removed, then all added")
	require.Equal(t, diffLine{"+", "y"}, lines[len(lines)-1])
}

func TestArgsChangesNameOnlyTheArgumentsThatChanged(t *testing.T) {
	changes := argsChanges(json.RawMessage(`{"body":"a\nb","event":"COMMENT","n":1}`), json.RawMessage(`{"body":"a\nc","event":"COMMENT","n":2,"draft":true}`))
	names := make([]string, len(changes))
	for i, c := range changes {
		names[i] = c.Name
	}
	require.Equal(t, []string{"body", "draft", "n"}, names)
	require.Equal(t, []diffLine{{" ", "a"}, {"-", "b"}, {"+", "c"}}, changes[0].Lines)
	require.Equal(t, []diffLine{{"-", ""}, {"+", "true"}}, changes[1].Lines, "an argument the proposal did not have")
}
