package github_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// countingServer serves h over real HTTP and counts the connections
// clients opened to it.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var opened atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &opened
}

// TestTheClientKeepsItsConnectionsForRequestsAtOnce: a worker sends many
// requests to its one host at once; once they are answered, the next as
// many reuse their connections instead of each opening one (net/http's
// default transport keeps two per host).
func TestTheClientKeepsItsConnectionsForRequestsAtOnce(t *testing.T) {
	const atOnce = 8
	var arrived atomic.Int64
	release := make(chan struct{})
	var once sync.Once
	srv, opened := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every request of a batch waits for the others: they are all in
		// flight at once, each on a connection of its own.
		if arrived.Add(1) == atOnce {
			once.Do(func() { close(release) })
		}
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"number":1}`))
	}))
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	batch := func() {
		var wg sync.WaitGroup
		errs := make(chan error, atOnce)
		for range atOnce {
			wg.Go(func() {
				_, _, err := gh.PullRequests.Get(t.Context(), "acme", "widgets", 1)
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}

	batch()
	require.Equal(t, int64(atOnce), opened.Load())
	batch()

	require.Equal(t, int64(atOnce), opened.Load(), "the second batch opened connections of its own")
}

// defaultPullHead is the head of the default fixture's acme/widgets#1.
const defaultPullHead = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"

// TestACheckRunUpdateLeavesItsConnectionForTheNext: an update's answer is
// read to its end, so the run's next update reuses the connection.
func TestACheckRunUpdateLeavesItsConnectionForTheNext(t *testing.T) {
	sb := ghsandbox.New(ghsandbox.DefaultFixture())
	srv, opened := countingServer(t, sb)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	acc := github.NewAccess(gh, nil, sb.BotLogin())
	want := api.CheckRunSync{
		RunID: "run-1", Repo: "acme/widgets", PullNumber: 1, Name: api.CheckRunName(api.DefaultAgent),
		HeadSHA: defaultPullHead, Status: api.CheckInProgress, Title: "Reading", Summary: "reading",
	}
	got, err := acc.SyncCheckRun(context.Background(), want)
	require.NoError(t, err)
	want.CheckRunID = got.CheckRunID

	for _, title := range []string{"Thinking", "Waiting for approval", "Posting", "Done"} {
		want.Title = title
		_, err := acc.SyncCheckRun(context.Background(), want)
		require.NoError(t, err)
	}

	require.Equal(t, int64(1), opened.Load(), "each update opened a connection of its own")
	checks := sb.CheckRuns("acme", "widgets", want.HeadSHA)
	require.Len(t, checks, 1)
	require.Equal(t, 4, checks[0].Updates)
}
