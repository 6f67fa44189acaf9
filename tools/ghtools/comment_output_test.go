package ghtools_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/tools/ghtools"
)

// The step records a comment's ExternalID as the comment it made or found
// (the run's outcome names it): an attempt and a look that find the
// comment name its ID, a look that finds none names nothing, never "0".
func TestACommentsOutputNamesItsIDOnlyWhenThereIsAComment(t *testing.T) {
	sb, acc := newSandbox(t, ghsandbox.DefaultFixture())
	call, err := commentCall(comment{Target: demoPR, Body: "Review", OperationKey: "run-3:2"})
	require.NoError(t, err)
	action := ghtools.NewCreateIssueComment(acc)

	before, err := action.Reconcile(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, api.ReconcileNotCreated, before.Outcome)
	require.Empty(t, before.Output.ExternalID)
	require.Empty(t, before.Output.URL)

	made, err := action.Execute(context.Background(), call)
	require.NoError(t, err)
	posted := sb.Comments("acme", "widgets", 1)
	require.Len(t, posted, 1)
	id := strconv.FormatInt(posted[0].ID, 10)
	require.Equal(t, id, made.ExternalID)
	require.False(t, made.AlreadyExisted)
	require.NotEmpty(t, made.URL)

	found, err := action.Reconcile(context.Background(), call)
	require.NoError(t, err)
	require.Equal(t, api.ReconcileFound, found.Outcome)
	require.Equal(t, id, found.Output.ExternalID)
	require.Equal(t, made.URL, found.Output.URL)

	again, err := action.Execute(context.Background(), call)
	require.NoError(t, err)
	require.True(t, again.AlreadyExisted)
	require.Equal(t, id, again.ExternalID)
	require.Len(t, sb.Comments("acme", "widgets", 1), 1)
}
