package approvalsrv

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// "<!---->" is a whole HTML comment: it closes where it opens, so the line
// after it is a line of its own, and a command there acts.
func TestCommandAfterAnEmptyHTMLCommentCounts(t *testing.T) {
	got, err := parseCommentCommand("An empty comment <!----> closes at once\n/agentrun approve act-1")

	require.NoError(t, err)
	require.Equal(t, commentCommand{Decision: "approve", ActionID: "act-1"}, got)
}

// A comment closed by "-->" at the very start of a line is closed: the line
// after it is a line of its own.
func TestCommandAfterACommentClosedAtTheStartOfALineCounts(t *testing.T) {
	got, err := parseCommentCommand("<!-- a note\n--> shown\n/agentrun approve act-1")

	require.NoError(t, err)
	require.Equal(t, commentCommand{Decision: "approve", ActionID: "act-1"}, got)
}

// The reason's limit is the API's: exactly maxReasonLength is a reason, one
// byte more is refused.
func TestRejectReasonOfTheLongestLengthIsAccepted(t *testing.T) {
	longest := strings.Repeat("r", maxReasonLength)

	got, err := parseCommentCommand("/agentrun reject act-1 " + longest)
	require.NoError(t, err)
	require.Equal(t, longest, got.Reason)

	_, err = parseCommentCommand("/agentrun reject act-1 " + longest + "r")
	var bad *invalidRequest
	require.ErrorAs(t, err, &bad)
}
