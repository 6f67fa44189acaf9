package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFollowShowsWhatTheModelWritesOnceEachTimeItChanges(t *testing.T) {
	var out strings.Builder
	shown := followWriting(&out, "I will read", "")
	shown = followWriting(&out, "I will read", shown)
	shown = followWriting(&out, "I will read the diff", shown)
	followWriting(&out, "", shown)

	require.Equal(t, "Writing: I will read\nWriting: I will read the diff\n", out.String())
}

func TestWritingLineIsOneLineOfTheNewestTextWithoutControlCharacters(t *testing.T) {
	line := writingLine("first line\n\x1b[31mred\x1b[0m\r\n" + strings.Repeat("word ", 100) + "end")

	require.NotContains(t, line, "\n")
	require.NotContains(t, line, "\x1b")
	require.True(t, strings.HasPrefix(line, "Writing: …"), line)
	require.True(t, strings.HasSuffix(line, "word end"), line)
	require.LessOrEqual(t, len(line), len("Writing: …")+writingWidth)
	require.Empty(t, writingLine(" \n\t"), "an offline model writes nothing and nothing is shown")
}
