package runclient_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

func supportQueue(t *testing.T, queue string) api.Target {
	t.Helper()
	tk, err := api.NewTarget("support_queue", map[string]string{"queue": queue})
	require.NoError(t, err)
	return tk
}

func TestARunIDNamesItsAgentAndTargetInSafeCharacters(t *testing.T) {
	pr, err := api.ParseTarget("Acme/Widgets", 7)
	require.NoError(t, err)
	key := runclient.TargetIdempotencyKey(pr, "", "carol", api.DefaultAgent)

	require.Equal(t, runclient.RunID("Acme/Widgets", 7, key), runclient.TargetRunID(api.DefaultAgent, pr, key),
		"a review keeps the IDs of before targets had kinds")
	require.Regexp(t, `^triage-acme-widgets-7-[0-9a-f]{12}$`, runclient.TargetRunID("triage", pr, key))

	hostile := supportQueue(t, `Support "Desk" */ ' OR 1=1 -- `+string(make([]byte, 0))+"ünï")
	id := runclient.TargetRunID("tickets", hostile, "k")
	require.Regexp(t, `^tickets-[a-z0-9-]{1,40}-[0-9a-f]{12}$`, id)
	require.Equal(t, id, runclient.TargetRunID("tickets", hostile, "k"), "deterministic")
	require.NotEqual(t, id, runclient.TargetRunID("tickets", hostile, "k2"))
}

func TestTheDefaultKeyOfATicketRunDependsOnItsTarget(t *testing.T) {
	a := runclient.TargetIdempotencyKey(supportQueue(t, "support"), "", "carol", "tickets")
	b := runclient.TargetIdempotencyKey(supportQueue(t, "billing"), "", "carol", "tickets")
	require.NotEqual(t, a, b)
	in := api.RunInput{Agent: "tickets", UserID: "carol", Approvers: []string{"alice"}}
	require.NotEqual(t, runclient.RequestHash(in.WithTarget(supportQueue(t, "support"))),
		runclient.RequestHash(in.WithTarget(supportQueue(t, "billing"))))
}

func TestAStartOfAKindWithoutApproversOrOfAnotherKindThanItsAgentsIsRefused(t *testing.T) {
	noApprovers := api.RunInput{Agent: "tickets", UserID: "carol"}.WithTarget(supportQueue(t, "support"))
	require.ErrorIs(t, runclient.CheckStart(noApprovers), api.ErrNeedsApprovers)

	mismatched := api.RunInput{Agent: "triage", UserID: "carol", Approvers: []string{"alice"}}.WithTarget(supportQueue(t, "support"))
	err := runclient.CheckStart(mismatched)
	require.EqualError(t, err, "agent triage takes a github_pull_request target, not a support_queue one")
	require.False(t, errors.Is(err, api.ErrNeedsApprovers))

	named := api.RunInput{Agent: "tickets", UserID: "carol", Approvers: []string{"alice"}}.WithTarget(supportQueue(t, "support"))
	require.NoError(t, runclient.CheckStart(named))
	require.NoError(t, runclient.CheckStart(api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol"}))
}
