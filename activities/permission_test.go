package activities_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func TestCheckRepoPermissionAnswersWhatGitHubSays(t *testing.T) {
	_, acts := newSandbox(t, ghsandbox.DefaultFixture())
	for login, want := range map[string]string{"alice": "admin", "bob": "write", "mallory": "read", "Mallory": "read", "nobody": "none"} {
		got, err := acts.CheckRepoPermission(context.Background(), activities.RepoPermissionInput{Owner: "acme", Repo: "widgets", Login: login})
		require.NoError(t, err, login)
		require.Equal(t, want, got.Permission, login)
	}
}

func TestCheckRepoPermissionOfAnUnknownRepositoryIsNone(t *testing.T) {
	_, acts := newSandbox(t, ghsandbox.DefaultFixture())
	got, err := acts.CheckRepoPermission(context.Background(), activities.RepoPermissionInput{Owner: "acme", Repo: "gone", Login: "alice"})
	require.NoError(t, err)
	require.Equal(t, "none", got.Permission, "GitHub answers 404, which grants nothing")
}

func TestCheckRepoPermissionRefusedByGitHubIsNotRetried(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	sb.addFault(t, ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: 401})
	_, err := acts.CheckRepoPermission(context.Background(), activities.RepoPermissionInput{Owner: "acme", Repo: "widgets", Login: "bob"})
	var appErr *temporal.ApplicationError
	require.True(t, errors.As(err, &appErr), "%v", err)
	require.Equal(t, activities.ErrTypeGitHubRejected, appErr.Type())
	require.True(t, appErr.NonRetryable())
}

func TestOnlyWritePermissionsMayApprove(t *testing.T) {
	for permission, want := range map[string]bool{
		"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "": false, "WRITE": false,
	} {
		require.Equal(t, want, activities.CanApprove(permission), permission)
	}
}
