package github_test

import (
	"context"
	"net/http"
	"testing"

	gogithub "github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// sandboxClient serves the sandbox over real HTTP and points a go-github
// client, made as every process makes it, at it.
func sandboxClient(t *testing.T) (*ghsandbox.Server, *gogithub.Client) {
	t.Helper()
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	_, gh := testkit.ServeSandbox(t, sb)
	return sb, gh
}

func TestPermissionOfAnswersWhatGitHubSays(t *testing.T) {
	_, gh := sandboxClient(t)
	for login, want := range map[string]string{"alice": "admin", "bob": "write", "mallory": "read", "Mallory": "read", "nobody": "none"} {
		got, err := github.PermissionOf(context.Background(), gh, "acme", "widgets", login)
		require.NoError(t, err, login)
		require.Equal(t, want, got, login)
	}
}

func TestPermissionOnAnUnknownRepositoryIsNone(t *testing.T) {
	_, gh := sandboxClient(t)

	got, err := github.PermissionOf(context.Background(), gh, "acme", "gone", "alice")

	require.NoError(t, err)
	require.Equal(t, "none", got, "GitHub answers 404, which grants nothing")
}

func TestPermissionRefusedByGitHubIsARejectionNamingWhoseItIs(t *testing.T) {
	sb, gh := sandboxClient(t)
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: http.StatusUnauthorized}))

	got, err := github.PermissionOf(context.Background(), gh, "acme", "widgets", "bob")

	require.Empty(t, got)
	requireRejected(t, err, "permission of bob on acme/widgets: 401 Bad credentials")
}

func TestPermissionCheckThatHitsARateLimitWaits(t *testing.T) {
	sb, gh := sandboxClient(t)
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: http.StatusForbidden, RetryAfter: 4}))

	_, err := github.PermissionOf(context.Background(), gh, "acme", "widgets", "bob")

	require.Equal(t, int64(4), standalone.RequireRateLimited(t, err, "secondary").RetryAfterSeconds)
}

// A server error is no "none": the check is retried, never taken as an answer.
func TestPermissionCheckThatFailsIsRetriedNotAnswered(t *testing.T) {
	sb, gh := sandboxClient(t)
	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpGetPermission, Mode: ghsandbox.ModeStatus, Status: http.StatusInternalServerError}))

	got, err := github.PermissionOf(context.Background(), gh, "acme", "widgets", "bob")

	require.Empty(t, got)
	standalone.RequirePlainRetryable(t, err)
	require.Contains(t, err.Error(), "permission of bob on acme/widgets: ")
}

func TestOnlyWritePermissionsMayApprove(t *testing.T) {
	for permission, want := range map[string]bool{
		"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "": false, "WRITE": false,
	} {
		require.Equal(t, want, api.CanApprove(permission), permission)
	}
}
