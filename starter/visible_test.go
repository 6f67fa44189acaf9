package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// hostileName is a file name a pull request can carry: ESC sequences that
// move the cursor up and erase the line, then a right-to-left override.
const hostileName = "cache/cache\x1b[1A\x1b[2K\u202eog.go"

// A pull request's file name reaches the preview an approver reads in
// `starter status`; the terminal must show its control characters, never
// act on them.
func TestStatusShowsTheControlCharactersOfAPullRequestFileNameInsteadOfActingOnThem(t *testing.T) {
	fixture := ghsandbox.DefaultFixture()
	files := fixture.Repos[0].Pulls[0].Files
	for i := range files {
		files[i].Filename = strings.Replace(files[i].Filename, "cache/cache.go", hostileName, 1)
	}
	base := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "starter-visible", Fixture: &fixture})
	s := &stack{Stack: base, vars: map[string]string{
		"TEMPORAL_ADDRESS": base.TemporalAddress(), "AGENT_TASK_QUEUE": base.TaskQueue, "USER": "carol",
	}}
	run := base.StartReview(t, base.TaskQueue)
	action := base.WaitForApproval(t, run.GetID())
	require.Contains(t, action.Preview, hostileName, "the run's preview carries the name as GitHub gave it")

	for _, args := range [][]string{{"status", run.GetID()}, {"status", run.GetID(), "--json"}} {
		r := s.starter(args...)
		require.Equal(t, 0, r.code, r.stderr)
		require.Contains(t, r.stdout, `cache\u001b[1A\u001b[2K\u202eog.go`, strings.Join(args, " "))
		require.NotContains(t, r.stdout, "\x1b", strings.Join(args, " "))
		require.NotContains(t, r.stdout, "\u202e", strings.Join(args, " "))
	}
	snap := s.snapshot(t, run.GetID())
	require.Equal(t, action.Preview, snap.PendingAction.Preview, "--json still decodes to the preview itself")
	require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
}
