package ghtools_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

func TestCommentWithoutAnOperationKeyIsRefusedBeforeAnyRequest(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	_, errCreate := createComment(acts, comment{Target: demoPR, Body: "Review"})
	_, errFind := findComment(acts, comment{Target: demoPR, Body: "Review"})

	for _, err := range []error{errCreate, errFind} {
		appErr := standalone.ApplicationError(t, err)
		require.True(t, appErr.NonRetryable())
		require.Equal(t, api.ErrTypeInvalidInput, appErr.Type())
		require.Contains(t, appErr.Message(), "operationKey is required")
	}
	require.Empty(t, sb.Requests())
}

// A create that cannot read the comments cannot know whether an earlier
// attempt already posted: it must fail and post nothing, not post blind.
func TestCreateThatCannotListTheCommentsPostsNothing(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: 500})

	_, err := createComment(acts, comment{Target: demoPR, Body: "Review", OperationKey: "run-1:1"})

	standalone.RequirePlainRetryable(t, err)
	require.Contains(t, err.Error(), "create comment on acme/widgets#1: look for its marker")
	require.Zero(t, sb.countRequests(ghsandbox.OpCreateComment))
	require.Empty(t, sb.Comments("acme", "widgets", 1))
}
