//go:build !rulechange

package api

import (
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
