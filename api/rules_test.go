//go:build !rulechange

package api

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestApproversMatchByASCIICaseOnly(t *testing.T) {
	require.True(t, IsApprover([]string{"Sam"}, "sam"))
	require.True(t, IsApprover([]string{"bob", "sam"}, "SAM"))
	require.False(t, IsApprover([]string{"sam"}, "ſam"), "Unicode folding must not make a look-alike an approver")
	require.False(t, IsApprover([]string{"alice"}, "ali"))
	require.False(t, IsApprover(nil, "sam"))
	require.Equal(t, "ſam is not an approver of this run", RefuseApprover([]string{"sam"}, "ſam"))
	require.Empty(t, RefuseApprover(nil, "anyone"), "a run without approvers asks for write permission instead")
}

func TestWhoMayCancel(t *testing.T) {
	run := Run{UserID: "carol", Approvers: []string{"alice"}}
	for who, want := range map[string]string{
		"CAROL":   "",
		"Alice":   "",
		"mallory": "mallory may not cancel this run: only its requester or an approver may",
	} {
		why, needsWriter := MayCancel(run, who)
		require.Equal(t, want, why, who)
		require.False(t, needsWriter, who)
	}
	why, needsWriter := MayCancel(Run{UserID: "carol"}, "bob")
	require.Empty(t, why)
	require.True(t, needsWriter, "on a run without approvers a writer may cancel")
	require.Equal(t, "bob has read permission on acme/widgets; cancelling needs write", RefuseWriter("bob", "read", "acme/widgets", "cancelling"))
	require.Empty(t, RefuseWriter("bob", "maintain", "acme/widgets", "cancelling"))
}

func TestAnActionIsOpenOnlyWhileItWaitsBeforeItsDeadline(t *testing.T) {
	now := time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC)
	decided := now.Add(-time.Minute)
	cases := map[string]struct {
		pa  PendingAction
		why string
		due bool
	}{
		"waiting":              {PendingAction{State: ActionWaiting, ExpiresAt: now.Add(time.Second)}, "", false},
		"waiting, no deadline": {PendingAction{State: ActionWaiting}, "", false},
		"at its deadline": {PendingAction{State: ActionWaiting, ExpiresAt: now},
			"the action expired at 2025-03-04T12:00:00Z without a decision", true},
		"approved": {PendingAction{State: ActionApproved, DecidedBy: "bob", DecidedAt: &decided},
			"the action was already approved by bob at 2025-03-04T11:59:00Z", false},
		"rejected, no time": {PendingAction{State: ActionRejected, DecidedBy: "bob"}, "the action was already rejected by bob", false},
		"expired": {PendingAction{State: ActionExpired, ExpiresAt: now.Add(-time.Hour)},
			"the action expired at 2025-03-04T11:00:00Z without a decision", false},
		"unknown state": {PendingAction{State: "paused"}, "the action is paused", false},
	}
	for name, c := range cases {
		why, due := ActionOpen(&c.pa, now)
		require.Equal(t, c.why, why, name)
		require.Equal(t, c.due, due, name)
	}
}

func TestAResolveAppliesOnlyToTheStepTheRunWaitsOn(t *testing.T) {
	waiting := RunSnapshot{AwaitingResolve: "step-5"}
	require.True(t, ResolveApplies(waiting, "step-5"))
	require.False(t, ResolveApplies(waiting, "step-4"))
	require.False(t, ResolveApplies(waiting, ""))
	require.False(t, ResolveApplies(RunSnapshot{}, ""), "a run that waits on nothing takes no resolve")
	require.False(t, ResolveApplies(RunSnapshot{}, "step-5"))
}

// A requestId is remembered bound to its channel and sender, case aside
// for the login, and never as itself.
func TestARequestKeyBindsTheRequestIDToItsChannelAndSender(t *testing.T) {
	key := RequestKey("web", "Alice", "r-1")
	require.Len(t, key, 32)
	require.NotContains(t, key, "r-1")
	require.Equal(t, key, RequestKey("web", "alice", "r-1"), "logins compare without case")
	require.Equal(t, key, RequestKey("web", "ALICE", "r-1"))
	require.Equal(t, RequestKey("web", "zoe", "r-1"), RequestKey("web", "ZOE", "r-1"), "A to Z, both ends")
	require.True(t, SameLogin("Zoe-A", "zoe-a"))
	require.NotEqual(t, key, RequestKey("api", "alice", "r-1"), "another channel")
	require.NotEqual(t, key, RequestKey("web", "bob", "r-1"), "another person")
	require.NotEqual(t, key, RequestKey("web", "alice", "r-2"), "another request")
	require.NotEqual(t, RequestKey("we", "balice", "r-1"), RequestKey("web", "alice", "r-1"), "the parts are kept apart")
	require.NotEqual(t, RequestKey("web", "alice[", "r-1"), RequestKey("web", "alice{", "r-1"), "only A to Z fold")
	require.NotEqual(t, RequestKey("web", "alice@", "r-1"), RequestKey("web", "alice`", "r-1"))
	require.Empty(t, RequestKey("web", "alice", ""), "no requestId, nothing to remember")
	require.Equal(t, "0ed63fb2007f33c0ae0c7ff618727319", RequestKey("web", "alice", "r-1"),
		"sha256 of the NUL-ended parts, as runs already carry it")
}

func TestOnlyWritersApprove(t *testing.T) {
	for p, want := range map[string]bool{"admin": true, "maintain": true, "write": true, "triage": false, "read": false, "none": false, "": false, "Write": false} {
		require.Equal(t, want, CanApprove(p), p)
	}
}

func TestTheMarkerAndTheSummaryNameTheRun(t *testing.T) {
	require.Equal(t, "<!-- agent-operation:run-1:5 -->", OperationMarker("run-1:5"))
	require.Equal(t, "Review acme/widgets#1 for alice", StaticSummary(RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "alice"}))
	goal := strings.Repeat("é", 50)
	require.Equal(t, "Review acme/widgets#1 for alice: "+strings.Repeat("é", 40),
		StaticSummary(RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "alice", Goal: goal}), "the goal is cut to 80 bytes")
	target, err := NewTarget("ticket", map[string]string{"id": "T-1"})
	require.NoError(t, err)
	in := RunInput{UserID: "alice"}.WithTarget(target)
	require.Equal(t, DefaultAgent+" on "+target.Label()+" for alice", StaticSummary(in))
	in.Agent = "triage"
	require.Equal(t, "triage on "+target.Label()+" for alice", StaticSummary(in))
}

func TestTruncateUTF8CutsOnACharacterBoundary(t *testing.T) {
	require.Equal(t, "abc", TruncateUTF8("abc", 3))
	require.Equal(t, "ab", TruncateUTF8("abc", 2))
	require.Equal(t, "", TruncateUTF8("abc", 0))
	require.Equal(t, "a", TruncateUTF8("aé", 2), "é is two bytes")
	require.Equal(t, "aé", TruncateUTF8("aé", 3))
	require.Equal(t, "a", TruncateUTF8("a€", 3), "€ is three bytes")
	require.Equal(t, "a", TruncateUTF8("a€", 2))
	require.Equal(t, "", TruncateUTF8("€", 2))
	require.Equal(t, "", TruncateUTF8("\x80\x80abc", 1), "a string that starts mid-character is cut to nothing, never before its start")
}

func TestAnAgentsNameIsLowerCaseLettersDigitsAndDashes(t *testing.T) {
	for name, want := range map[string]bool{
		"pr-review": true, "a": true, "z9": true, "a-0": true, "fizz": true, "a9": true, "banana": true, strings.Repeat("a", 63): true,
		"": false, strings.Repeat("a", 64): false, "9a": false, "-a": false, "Pr": false, "pr_review": false,
		"pr review": false, `pr"x`: false, "a/b": false, "a.b": false, "aZ": false, "a{": false, "a`": false, "a:": false, "a/": false,
	} {
		require.Equal(t, want, ValidAgentName(name), "%q", name)
	}
}

func TestAnExpiredActionSaysWhenItExpired(t *testing.T) {
	require.Equal(t, "the action expired without a decision", actionExpired(&PendingAction{State: ActionExpired}))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("CET", 3600))
	require.Equal(t, "the action expired at 2026-01-02T02:04:05Z without a decision", actionExpired(&PendingAction{ExpiresAt: at}))
}
