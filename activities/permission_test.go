package activities_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// The activity answers with github.PermissionOf's reading of GitHub (its
// cases are tested beside it), refusals included, unwrapped.
func TestCheckRepoPermissionAnswersWhatGitHubSays(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

	got, err := acts.CheckRepoPermission(context.Background(), api.RepoPermissionInput{Owner: "acme", Repo: "widgets", Login: "Mallory"})
	require.NoError(t, err)
	require.Equal(t, api.RepoPermission{Permission: "read"}, got)

	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: 401})
	_, err = acts.CheckRepoPermission(context.Background(), api.RepoPermissionInput{Owner: "acme", Repo: "widgets", Login: "bob"})
	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
}
