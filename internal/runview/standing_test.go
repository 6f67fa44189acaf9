package runview

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// starter status says how a run stands as the page and the history do
// (api.StandingOfRun): a partial run names the tool that failed, a
// cancelled one who cancelled it and why.
func TestStatusSaysTheRunsStandingWithWhy(t *testing.T) {
	partial := api.RunSnapshot{
		Run: api.Run{Status: api.RunCompleted, Outcome: api.OutcomePartial, Agent: "recommend", TargetLabel: "table for 2 in riverside (budget 150)"},
		Outcome: api.Outcome{Summary: "Saved 1 recommendation; 1 step failed",
			Posted: []api.PostedOutcome{{StepID: "s-9", Made: "saved recommendation", Target: "merchants.test/recommendations"}},
			Failed: []api.FailedOutcome{{StepID: "s-5", What: "get_coupons", Error: "coupons unavailable"}}},
	}
	var b strings.Builder
	require.NoError(t, Status(&b, "recommend-1", partial, nil))
	require.Contains(t, b.String(), "status   completed · Partial: get_coupons failed (coupons unavailable)\n")
	require.Contains(t, b.String(), "target   table for 2 in riverside (budget 150)\n")

	cancel := &api.Cancellation{By: "alice", Reason: "wrong pull request"}
	cancelled := api.RunSnapshot{Run: api.Run{Status: api.RunCancelled, Repo: "acme/widgets", PullNumber: 1}, Cancel: cancel,
		Outcome: api.Outcome{Summary: "Nothing posted", Declined: []api.DeclinedOutcome{{ActionID: "act-1", Target: "acme/widgets#1",
			State: api.ActionExpired, Reason: cancel.Detail()}}}}
	b.Reset()
	require.NoError(t, Status(&b, "review-1", cancelled, nil))
	require.Contains(t, b.String(), "status   cancelled · Cancelled by alice: wrong pull request\n")
	require.Contains(t, b.String(), "  cancelled action act-1 on acme/widgets#1, not decided: run cancelled by alice: wrong pull request\n")
	require.NotContains(t, b.String(), "expired")
}
