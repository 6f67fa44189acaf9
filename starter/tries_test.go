package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/ghsandbox"
)

func TestStatusWhileGitHubKeepsFailingAReadShowsTheTryAndTheError(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a dev server")
	}
	s := startStack(t)
	// Three failures keep the read in Temporal's backoff for about three
	// seconds (1s, then 2s) before the fourth try succeeds.
	require.NoError(t, s.Sandbox().AddFault(ghsandbox.Fault{
		Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: 502, Count: 3,
	}))
	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1")
	require.Equal(t, 0, started.code, started.stderr)
	runID := firstLine(started.stdout)

	var shown string
	require.Eventually(t, func() bool {
		r := s.starter("status", runID)
		shown = r.stdout
		return r.code == 0 && bytes.Contains([]byte(r.stdout), []byte("(try "))
	}, time.Minute, 50*time.Millisecond, "status never showed a retried read")

	require.Regexp(t, `get_pull_request\s+running\s+1 \(try [23]\)`, shown)
	require.Contains(t, shown, "last try: ")
	require.Contains(t, shown, "502")
}
