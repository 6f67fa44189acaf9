package workflows_test

import (
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// recommendScenarios are the recommender's recorded runs: approved, and
// with the coupon service down (partial). Their files are named
// recommend*, which the replayer replays over a registry with the
// recommend agent (replay_test.go).
func recommendScenarios() []recordScenario {
	approve := signal(api.DecisionApprove)
	return []recordScenario{
		{name: "recommend", worker: startRecommendWorker, input: recommendInput, decide: approve,
			check: requireRecommended(api.OutcomeComplete)},
		{name: "recommend-coupons-down", worker: startRecommendWorker, input: recommendInput, decide: approve,
			before: faults(ghsandbox.Fault{Op: merchantsandbox.OpGetCoupons, Mode: ghsandbox.ModeStatus, Status: 503, Count: 20}),
			check:  requireRecommended(api.OutcomePartial)},
	}
}

// recommendInput is the demo's request (make up's recommender: line), approved by alice.
func recommendInput(in *api.RunInput) {
	target, err := api.NewTarget(agents.TargetRecommendation, map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	if err != nil {
		panic(err)
	}
	*in = api.RunInput{Agent: agents.Recommend, UserID: in.UserID, ToolTimeout: in.ToolTimeout, Approvers: []string{"alice"},
		Goal: "somewhere for two to talk, about 150, coupons welcome"}.WithTarget(target)
}

// startRecommendWorker starts a worker on taskQueue whose registry adds the
// recommend agent over the stack's sandbox, which serves the merchants.
func startRecommendWorker(t *testing.T, stack *testkit.Stack, taskQueue string) {
	acts := stack.Activities(nil)
	ext, err := agents.Recommender(stack.GitHubURL, nil)
	require.NoError(t, err)
	acts.Tools, err = agents.BuiltinWith(acts.GitHub, ext)
	require.NoError(t, err)
	w := agentworker.NewWithActivities(stack.Client(), taskQueue, acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)
}

// requireRecommended checks the recorded run ended with outcome and one
// more saved recommendation, approved by alice.
func requireRecommended(outcome string) func(*testing.T, client.Client, api.RunSnapshot, *ghsandbox.Server) {
	return func(t *testing.T, _ client.Client, snap api.RunSnapshot, sandbox *ghsandbox.Server) {
		require.Equal(t, agents.Recommend, snap.Run.Agent)
		require.Equal(t, outcome, snap.Run.Outcome)
		require.Len(t, snap.Outcome.Posted, 1, "one save")
		require.Equal(t, "alice", snap.Outcome.Posted[0].ApprovedBy)
		require.NotEmpty(t, sandbox.Merchants().Recommendations())
	}
}
