package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// stack is a real dev server, a worker in this process with the offline
// reviewer, and the GitHub sandbox: what `make up` runs, minus processes.
type stack struct {
	*testkit.Stack
	vars map[string]string
}

func startStack(t *testing.T) *stack {
	t.Helper()
	base := testkit.StartStack(t, testkit.StackOptions{TaskQueue: "starter-e2e"})
	return &stack{Stack: base, vars: map[string]string{
		"TEMPORAL_ADDRESS": base.TemporalAddress(),
		"AGENT_TASK_QUEUE": base.TaskQueue,
		"USER":             "carol",
	}}
}

// result is one starter invocation.
type result struct {
	stdout, stderr string
	code           int
}

func starterWith(vars map[string]string, args ...string) result {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, func(k string) string { return vars[k] }, &stdout, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

func (s *stack) starter(args ...string) result { return starterWith(s.vars, args...) }

func (s *stack) snapshot(t *testing.T, runID string) api.RunSnapshot {
	t.Helper()
	r := s.starter("status", runID, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var snap api.RunSnapshot
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &snap))
	return snap
}

// requireContiguousEvents checks the event lines of a --follow output number
// from..N with no gap and no repeat.
func requireContiguousEvents(t *testing.T, output string, from int64) {
	t.Helper()
	want := from
	for _, line := range strings.Split(output, "\n") {
		var seq int64
		if _, err := fmt.Sscanf(line, "%d ", &seq); err != nil {
			continue
		}
		require.Equal(t, want, seq, "event line %q", line)
		want++
	}
	require.Greater(t, want, from, "no events in:\n%s", output)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func TestStartFollowThenApprovePostsTheReviewAndCompletes(t *testing.T) {
	s := startStack(t)

	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow")

	require.Equal(t, 0, started.code, started.stderr)
	runID := firstLine(started.stdout)
	require.True(t, strings.HasPrefix(runID, "review-acme-widgets-1-"), runID)
	require.Contains(t, started.stdout, "is waiting for approval of action")
	requireContiguousEvents(t, started.stdout, 1)
	snap := s.snapshot(t, runID)
	require.Equal(t, api.RunWaitingForUser, snap.Run.Status)
	require.NotNil(t, snap.PendingAction)

	approved := s.starter("approve", runID, "--action", snap.PendingAction.ID, "--as", "alice")

	require.Equal(t, 0, approved.code, approved.stderr)
	require.Contains(t, approved.stdout, "accepted: "+snap.PendingAction.StepID+" approved")
	followed := s.starter("events", runID, "--follow")
	require.Equal(t, 0, followed.code, followed.stderr)
	require.Contains(t, followed.stdout, "run "+runID+" completed")
	requireContiguousEvents(t, followed.stdout, 1)
	require.Equal(t, api.RunCompleted, s.snapshot(t, runID).Run.Status)
	comments := s.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.Contains(t, comments[0].Body, "<!-- agent-operation:")
}

func TestStartTwiceWithTheSameRequestReturnsTheSameRun(t *testing.T) {
	s := startStack(t)

	first := s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--goal", "security")
	second := s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--goal", "security")
	otherGoal := s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--goal", "style")

	require.Equal(t, 0, first.code, first.stderr)
	require.Equal(t, 0, second.code, second.stderr)
	require.Equal(t, first.stdout, second.stdout)
	require.NotEqual(t, first.stdout, otherGoal.stdout)
}

func TestStartWithAnAgentNamesItAndIndexesTheRunByIt(t *testing.T) {
	s := startStack(t)

	text := s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--idempotency-key", "k-agent")
	require.Equal(t, 0, text.code, text.stderr)
	runID := strings.TrimSpace(text.stdout)
	require.Equal(t, runID, firstLine(text.stdout), "stdout is the run ID alone, for scripts")
	require.Contains(t, text.stderr, "run "+runID+": agent pr-review")

	triage := s.starter("start", "--repo", "acme/widgets", "--pr", "3", "--agent", "triage", "--json")
	require.Equal(t, 0, triage.code, triage.stderr)
	var started runclient.Started
	require.NoError(t, json.Unmarshal([]byte(triage.stdout), &started))
	require.Equal(t, "triage", started.Agent)
	desc, err := s.Client().DescribeWorkflow(context.Background(), started.RunID, "")
	require.NoError(t, err)
	agent, ok := desc.TypedSearchAttributes.GetKeyword(api.SearchAttrAgent)
	require.True(t, ok)
	require.Equal(t, "triage", agent)

	otherAgent := s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--idempotency-key", "k-agent", "--agent", "triage")
	require.Equal(t, 1, otherAgent.code, otherAgent.stdout)
	require.Contains(t, otherAgent.stderr, "already used for a different request")
	require.Empty(t, otherAgent.stdout)
}

func TestStartWithTheKeyOfAFinishedRunReportsItInsteadOfStartingAgain(t *testing.T) {
	s := startStack(t)
	first := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--idempotency-key", "k1", "--follow")
	require.Equal(t, 0, first.code, first.stderr)
	runID := firstLine(first.stdout)
	snap := s.snapshot(t, runID)
	rejected := s.starter("reject", runID, "--action", snap.PendingAction.ID, "--as", "alice", "--reason", "not now")
	require.Equal(t, 0, rejected.code, rejected.stderr)
	// The run reports completed just before its workflow closes; wait for the close.
	require.NoError(t, s.Client().GetWorkflow(context.Background(), runID, "").Get(context.Background(), nil))

	again := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--idempotency-key", "k1", "--json")

	require.Equal(t, 0, again.code, again.stderr)
	var res runclient.Started
	require.NoError(t, json.Unmarshal([]byte(again.stdout), &res))
	require.Equal(t, runclient.Started{RunID: runID, Agent: api.DefaultAgent, ClosedStatus: "completed"}, res)
	require.Contains(t, again.stderr, "already finished")
	followed := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--idempotency-key", "k1", "--follow")
	require.Equal(t, exitRunDeclined, followed.code, "following the key's finished run tells how it ended: %s", followed.stderr)
	require.Equal(t, runID, firstLine(followed.stdout))
	require.Empty(t, s.Sandbox().Comments("acme", "widgets", 1))
}

func TestApproveOfAnUnknownActionReportsWhyTheRunIgnoredIt(t *testing.T) {
	s := startStack(t)
	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow")
	runID := firstLine(started.stdout)

	r := s.starter("approve", runID, "--action", "act-nope", "--as", "alice")

	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "the run ignored it")
	require.Contains(t, r.stderr, `unknown action "act-nope"`)
}

func TestListShowsRunsFilteredByStatus(t *testing.T) {
	s := startStack(t)
	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow")
	runID := firstLine(started.stdout)

	require.Eventually(t, func() bool {
		r := s.starter("list", "--status", "waiting_for_user")
		return r.code == 0 && strings.Contains(r.stdout, runID)
	}, 20*time.Second, 100*time.Millisecond, "the waiting run never appeared in the list")
	completed := s.starter("list", "--status", "completed")
	require.Equal(t, 0, completed.code, completed.stderr)
	require.NotContains(t, completed.stdout, runID)
	require.Equal(t, []string{"RUN", "ID", "AGENT", "STATUS", "STARTED", "OUTCOME"}, strings.Fields(firstLine(completed.stdout)))

	mine := s.starter("list", "--agent", "pr-review")
	require.Equal(t, 0, mine.code, mine.stderr)
	require.Contains(t, mine.stdout, runID)
	other := s.starter("list", "--agent", "triage", "--status", "running")
	require.Equal(t, 0, other.code, other.stderr)
	require.NotContains(t, other.stdout, runID, "a pr-review run is not listed under triage")

	// Once it ends, its row says how it stands, as every view does.
	pending := s.snapshot(t, runID).PendingAction
	require.NotNil(t, pending)
	require.Equal(t, 0, s.starter("reject", runID, "--action", pending.ID, "--as", "alice", "--reason", "not now").code)
	require.Eventually(t, func() bool {
		r := s.starter("list", "--status", "completed")
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, runID+" ") {
				return strings.HasSuffix(line, "Rejected by alice: not now")
			}
		}
		return false
	}, 20*time.Second, 100*time.Millisecond, "the ended run's row never said who rejected it and why")
}

func TestListWaitingForUserShowsTheApprovalInboxWithEachActionID(t *testing.T) {
	s := startStack(t)
	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow")
	require.Equal(t, 0, started.code, started.stderr)
	runID := firstLine(started.stdout)
	action := s.snapshot(t, runID).PendingAction
	require.NotNil(t, action)

	var inbox []runclient.PendingApproval
	require.Eventually(t, func() bool {
		r := s.starter("list", "--status", "waiting_for_user", "--json")
		return r.code == 0 && json.Unmarshal([]byte(r.stdout), &inbox) == nil && len(inbox) == 1
	}, 20*time.Second, 100*time.Millisecond, "the waiting run never appeared in the inbox")
	table := s.starter("list", "--status", "waiting_for_user")

	require.Equal(t, runID, inbox[0].RunID)
	require.Equal(t, action.ID, inbox[0].ActionID)
	require.Equal(t, "acme/widgets#1", inbox[0].Target)
	require.Equal(t, "carol", inbox[0].RequestedBy)
	require.Equal(t, 0, table.code, table.stderr)
	lines := strings.Split(strings.TrimSpace(table.stdout), "\n")
	require.Len(t, lines, 3, table.stdout)
	require.Equal(t, []string{runID, action.ID, api.ToolCreateIssueComment, "acme/widgets#1", "carol", runview.FormatTime(action.ExpiresAt)}, strings.Fields(lines[1]))
	require.Contains(t, lines[2], "starter approve RUN_ID --action ACTION_ID")
}

func TestUnknownRunExits1WithOneLine(t *testing.T) {
	s := startStack(t)
	for _, args := range [][]string{
		{"status", "nope"},
		{"events", "nope"},
		{"events", "nope", "--follow"},
		{"approve", "nope", "--action", "a", "--as", "alice"},
		{"resolve", "nope", "--step", "step-1", "--decision", "retry", "--as", "ops"},
	} {
		t.Run(args[0], func(t *testing.T) {
			r := s.starter(args...)

			require.Equal(t, 1, r.code)
			require.Equal(t, "run \"nope\" not found\n", r.stderr)
		})
	}
}

func TestUnreachableTemporalExits1NamingTheAddress(t *testing.T) {
	addr := testkit.FreeAddress(t)

	r := starterWith(map[string]string{"TEMPORAL_ADDRESS": addr}, "status", "some-run")

	require.Equal(t, 1, r.code)
	require.Contains(t, r.stderr, "cannot reach Temporal at "+addr)
}

func TestStatusWhileGitHubKeepsFailingAReadShowsTheTryAndTheError(t *testing.T) {
	testkit.NeedsDevServer(t)
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

// eventLines are the event lines of an output, without the follow's
// closing words and hints.
func eventLines(output string) []string {
	var lines []string
	for _, line := range strings.Split(output, "\n") {
		var seq int64
		if _, err := fmt.Sscanf(line, "%d ", &seq); err == nil {
			lines = append(lines, line)
		}
	}
	return lines
}

func TestStartFollowOfARunThatFailsExits3(t *testing.T) {
	s := startStack(t)

	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--agent", "no-such-agent", "--follow")

	require.Equal(t, exitRunFailed, started.code, "stdout:\n%s\nstderr:\n%s", started.stdout, started.stderr)
	runID := firstLine(started.stdout)
	require.Contains(t, started.stderr, "run "+runID+" failed")
	require.Equal(t, api.RunFailed, s.snapshot(t, runID).Run.Status)
	again := s.starter("events", runID, "--follow", "--json")
	require.Equal(t, exitRunFailed, again.code, "--json follows with the same code")
}

func TestEventsFollowOfARejectedRunExits4AndOfACancelledRunExits5(t *testing.T) {
	s := startStack(t)
	rejectedRun := firstLine(s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow").stdout)
	cancelledRun := firstLine(s.starter("start", "--repo", "acme/widgets", "--pr", "2", "--follow").stdout)
	pending := s.snapshot(t, rejectedRun).PendingAction
	require.NotNil(t, pending)

	require.Equal(t, 0, s.starter("reject", rejectedRun, "--action", pending.ID, "--as", "alice", "--reason", "not now").code)
	require.Equal(t, 0, s.starter("cancel", cancelledRun, "--as", "carol", "--reason", "wrong pull request").code)

	rejected := s.starter("events", rejectedRun, "--follow")
	require.Equal(t, exitRunDeclined, rejected.code, "stdout:\n%s\nstderr:\n%s", rejected.stdout, rejected.stderr)
	require.Contains(t, rejected.stderr, "did none of its actions")
	cancelled := s.starter("events", cancelledRun, "--follow")
	require.Equal(t, exitRunCancelled, cancelled.code, "stdout:\n%s\nstderr:\n%s", cancelled.stdout, cancelled.stderr)
	require.Contains(t, cancelled.stderr, "was cancelled by carol: wrong pull request", "who cancelled and why, as every view says")
	require.Empty(t, s.Sandbox().Comments("acme", "widgets", 1))
}

func TestFollowedEventsReadAsTheyDoWhenReadAgain(t *testing.T) {
	s := startStack(t)
	started := s.starter("start", "--repo", "acme/widgets", "--pr", "1", "--follow")
	require.Equal(t, 0, started.code, started.stderr)
	runID := firstLine(started.stdout)

	later := s.starter("events", runID)

	require.Equal(t, 0, later.code, later.stderr)
	live := eventLines(started.stdout)
	require.Equal(t, live, eventLines(later.stdout)[:len(live)], "a line reads the same while following and later")
	for _, line := range live {
		if strings.Contains(line, "step_status step-") {
			require.Regexp(t, `step_status step-\d+ \w+\s+\S`, line, "a step's event names the step")
		}
	}
}
