package github

import (
	"testing"

	"github.com/stretchr/testify/require"
)

const head = "1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e"

func TestSupersededBodyMarksTheSummaryLineOnce(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"heading", "## Review of a/b#1: X\n\nbody\n<!-- m -->", "## ~~Review of a/b#1: X~~ (superseded by " + head + "; run r2 took over)\n\nbody\n<!-- m -->"},
		{"plain line", "Looks fine.\r\nmore", "~~Looks fine.~~ (superseded by " + head + "; run r2 took over)\nmore"},
		{"one line", "#tag is no heading", "~~#tag is no heading~~ (superseded by " + head + "; run r2 took over)"},
		{"empty summary", "\nrest", "(superseded by " + head + "; run r2 took over)\nrest"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := SupersededBody(c.body, head, false, "r2")
			require.Equal(t, c.want, got)
			require.Equal(t, got, SupersededBody(got, head, false, "r2"), "marking a marked body changes nothing")
			require.Equal(t, got, SupersededBody(got, "ffffffffffffffffffffffffffffffffffffffff", false, "r3"), "the first run that took over stays named")
		})
	}
	closed := SupersededBody("## Review\nx", "", true, "")
	require.Equal(t, "## ~~Review~~ (pull request closed)\nx", closed)
	require.Equal(t, closed, SupersededBody(closed, "", true, ""))
}
