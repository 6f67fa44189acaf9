package ghcomment

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// "<!---->" is a whole HTML comment: it closes where it opens, so the line
// after it is a line of its own, and a command there acts.
func TestCommandAfterAnEmptyHTMLCommentCounts(t *testing.T) {
	got, err := ParseCommentCommand("An empty comment <!----> closes at once\n/agentrun approve act-1")

	require.NoError(t, err)
	require.Equal(t, CommentCommand{Decision: "approve", ActionID: "act-1"}, got)
}
