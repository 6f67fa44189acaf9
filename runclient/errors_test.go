package runclient

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
)

func TestCallsToAnUnreachableTemporalAreUnavailable(t *testing.T) {
	// A lazy client dials on first use: nothing listens on port 1.
	c, err := client.NewLazyClient(client.Options{HostPort: "127.0.0.1:1"})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	rc := New(c, Options{CallTimeout: 2 * time.Second})

	_, err = rc.Snapshot(context.Background(), "some-run")
	require.ErrorIs(t, err, ErrUnavailable)
	require.NotErrorIs(t, err, ErrRunNotFound)
	require.ErrorContains(t, err, "some-run")
	err = rc.Decide(context.Background(), "some-run", api.ApprovalSignal{ActionID: "act-x"})
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = rc.WaitingRunIDs(context.Background())
	require.ErrorIs(t, err, ErrUnavailable)
}

func TestACallWhoseDeadlinePassedIsUnavailableWhateverTheServerAnswered(t *testing.T) {
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	canceledByServer := serviceerror.NewCanceled("context canceled")

	err := classify(expired, "run-1", "query run of run", canceledByServer)

	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorContains(t, err, "run-1")
	// The server's Canceled can arrive just before the caller's own timer
	// fires: the caller did not cancel, so the server gave up.
	live, stop := context.WithTimeout(context.Background(), time.Hour)
	defer stop()
	require.ErrorIs(t, classify(live, "run-1", "query run of run", canceledByServer), ErrUnavailable)
	require.ErrorIs(t, classify(live, "run-1", "query run of run", context.Canceled), ErrUnavailable)
	stop()
	require.NotErrorIs(t, classify(live, "run-1", "query run of run", canceledByServer), ErrUnavailable,
		"a call its caller cancelled is the caller's choice, not a slow server")
	require.NotErrorIs(t, classify(live, "run-1", "query run of run", context.Canceled), ErrUnavailable)
}
