package approvalsrv

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

type noRuns struct{}

func (noRuns) Events(context.Context, string, int64) ([]api.Event, error) {
	return nil, errors.New("no such run")
}
func (noRuns) Ended(context.Context, string) (bool, error) { return false, nil }

func TestLastEventIDPrefersTheHeaderToTheQuery(t *testing.T) {
	r := httptest.NewRequest(http.MethodGet, "/v1/runs/run-1/events?lastEventId=4", nil)
	seq, err := lastEventID(r)
	require.NoError(t, err)
	require.Equal(t, int64(4), seq)

	r.Header.Set("Last-Event-ID", " 9 ")
	seq, err = lastEventID(r)
	require.NoError(t, err)
	require.Equal(t, int64(9), seq)

	for _, bad := range []string{"-1", "x", "1.5"} {
		r.Header.Set("Last-Event-ID", bad)
		_, err = lastEventID(r)
		require.Error(t, err, bad)
	}
}

func TestCapsRefuseAStreamAndAReleasedPlaceComesBack(t *testing.T) {
	h := newHub(noRuns{}, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	h.SetCaps(2, 1)

	release, err := h.admit("user:alice")
	require.NoError(t, err)
	_, err = h.admit("user:alice")
	var tooMany *tooManyStreams
	require.ErrorAs(t, err, &tooMany)
	require.Contains(t, tooMany.Message, "you have 1 event streams open")
	releaseBob, err := h.admit("user:bob")
	require.NoError(t, err)
	_, err = h.admit("user:carol")
	require.ErrorAs(t, err, &tooMany)
	require.Equal(t, "the server has too many event streams open; try again later", tooMany.Message)

	release()
	release() // twice gives back one place only
	require.Equal(t, 1, h.OpenStreams())
	releaseBob()
	require.Zero(t, h.OpenStreams())
}

// A stream whose first query fails holds no place and leaves no poller.
func TestStreamWhoseFirstQueryFailsGivesItsPlaceBack(t *testing.T) {
	h := newHub(noRuns{}, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))

	_, err := h.Open(context.Background(), "run-1", 0, "addr:127.0.0.1")

	require.ErrorContains(t, err, "no such run")
	require.Zero(t, h.OpenStreams())
	require.Eventually(t, func() bool {
		registered, running := h.Pollers()
		return registered == 0 && running == 0
	}, 10*time.Second, time.Millisecond)
}
