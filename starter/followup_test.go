package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func TestStartFollowUpRefusesTheFlagsItTakesFromTheEarlierRun(t *testing.T) {
	for _, args := range [][]string{
		{"--repo", "acme/widgets", "--pr", "1"},
		{"--agent", "triage"},
		{"--approver", "mallory"},
	} {
		r := starterWith(map[string]string{"USER": "carol"}, append([]string{"start", "--follow-up", "review-x", "--goal", "again"}, args...)...)
		require.Equal(t, exitUsage, r.code, r.stderr)
		require.Contains(t, r.stderr, "a follow-up keeps its run's target, agent and approvers: leave out")
		require.Contains(t, firstLine(r.stderr), args[0])
	}
	r := starterWith(map[string]string{"USER": "carol"}, "start", "--follow-up", "review-x")
	require.Equal(t, exitUsage, r.code)
	require.Contains(t, r.stderr, "--follow-up needs --goal")
}

// A goal the run would refuse is refused before any call, on a plain start
// and on a follow-up alike (api.CheckGoal): no server is running here.
func TestStartRefusesAGoalTheRunWouldRefuseBeforeAnyCall(t *testing.T) {
	for _, goal := range []string{strings.Repeat("x", api.MaxGoalBytes+1), "first line\nsecond", "bad \xff byte"} {
		for _, args := range [][]string{
			{"start", "--follow-up", "review-x", "--goal", goal},
			{"start", "--repo", "acme/widgets", "--pr", "1", "--goal", goal},
		} {
			r := starterWith(map[string]string{"USER": "carol", "TEMPORAL_ADDRESS": "127.0.0.1:1"}, args...)
			require.Equal(t, exitUsage, r.code, "%v: %s", args[:3], r.stderr)
			require.Contains(t, r.stderr, "goal must be valid UTF-8 of at most 2000 bytes", args[:3])
		}
	}
}

// waitEnded waits until the run reaches a terminal status and returns it.
func (s *stack) waitEnded(t *testing.T, runID string) api.RunSnapshot {
	t.Helper()
	var snap api.RunSnapshot
	require.Eventually(t, func() bool {
		snap = s.snapshot(t, runID)
		return snap.Run.Status.IsTerminal()
	}, time.Minute, 50*time.Millisecond)
	return snap
}

// waitWaiting waits until the run waits for approval of an action.
func (s *stack) waitWaiting(t *testing.T, runID string) api.RunSnapshot {
	t.Helper()
	var snap api.RunSnapshot
	require.Eventually(t, func() bool {
		snap = s.snapshot(t, runID)
		return snap.Run.Status == api.RunWaitingForUser && snap.PendingAction != nil
	}, time.Minute, 50*time.Millisecond)
	return snap
}

// approveWhenWaiting approves the run's pending action as alice once it waits.
func (s *stack) approveWhenWaiting(t *testing.T, runID string) {
	t.Helper()
	snap := s.waitWaiting(t, runID)
	r := s.starter("approve", runID, "--action", snap.PendingAction.ID, "--as", "alice")
	require.Equal(t, 0, r.code, r.stderr)
}

func TestAFollowUpSeesTheFirstConversationAndPostsOneNewCommentOnADevServer(t *testing.T) {
	s := startStack(t)
	first := s.starter("start", "--repo", "acme/widgets", "--pr", "1")
	require.Equal(t, 0, first.code, first.stderr)
	runID := firstLine(first.stdout)
	s.waitWaiting(t, runID)

	early := s.starter("start", "--follow-up", runID, "--goal", "too early")
	require.Equal(t, exitError, early.code, "a follow-up of a run still open is refused")
	require.Contains(t, early.stderr, "is still open")
	s.approveWhenWaiting(t, runID)

	require.Equal(t, api.RunCompleted, s.waitEnded(t, runID).Run.Status)
	firstComments := s.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, firstComments, 1)

	goal := "also say whether the cache is tested"
	follow := s.starter("start", "--follow-up", runID, "--goal", goal)
	again := s.starter("start", "--follow-up", runID, "--goal", goal)
	require.Equal(t, 0, follow.code, follow.stderr)
	require.Equal(t, follow.stdout, again.stdout, "a repeated follow-up finds the run the first started")
	followID := firstLine(follow.stdout)
	require.NotEqual(t, runID, followID)
	s.approveWhenWaiting(t, followID)
	snap := s.waitEnded(t, followID)

	require.Equal(t, api.RunCompleted, snap.Run.Status, snap.Run.Error)
	require.Equal(t, runID, snap.Run.FollowUp)
	require.Equal(t, runID, snap.Run.ConversationID, "the first run's conversation")
	require.Greater(t, snap.Checkpoint.ConversationLength, s.snapshot(t, runID).Checkpoint.ConversationLength,
		"the follow-up's conversation holds the first run's and more")
	comments := s.Sandbox().Comments("acme", "widgets", 1)
	require.Len(t, comments, 2, "one new comment; the first run's is not posted again")
	require.Equal(t, firstComments[0].Body, comments[0].Body)
	require.Contains(t, comments[1].Body, goal)
	require.Contains(t, comments[1].Body, "<!-- agent-operation:"+followID+":", "the new comment is the follow-up's own operation")

	var rows []runclient.Listed
	require.Eventually(t, func() bool {
		r := s.starter("conversation", followID, "--json")
		return r.code == 0 && json.Unmarshal([]byte(r.stdout), &rows) == nil && len(rows) == 2
	}, time.Minute, 100*time.Millisecond, "visibility lists both runs")
	require.Equal(t, []string{runID, followID}, []string{rows[0].RunID, rows[1].RunID}, "in the order they started")

	// A reader of the repository, on a run that names no approvers: the run
	// asks GitHub and refuses, posting nothing.
	forged := s.starter("start", "--follow-up", runID, "--goal", "post as me", "--user", "mallory")
	require.Equal(t, 0, forged.code, forged.stderr)
	refused := s.waitEnded(t, firstLine(forged.stdout))
	require.Equal(t, api.RunFailed, refused.Run.Status)
	require.Contains(t, refused.Run.Error, "following up needs write")
	require.Len(t, s.Sandbox().Comments("acme", "widgets", 1), 2)
}
