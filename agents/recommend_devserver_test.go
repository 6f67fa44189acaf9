package agents_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The recommender's runs share the binary's dev server: each has its own
// sandbox, queues and run ID.
func TestMain(m *testing.M) { testkit.RunTests(m) }

// startRecommender starts a stack (on the shared dev server: sandbox,
// worker) and a worker of its own whose registry adds the recommend agent over the
// sandbox's merchant service, then starts the demo's run, approved by alice.
func startRecommender(t *testing.T, faults ...ghsandbox.Fault) (*testkit.Stack, client.WorkflowRun) {
	t.Helper()
	s := testkit.StartStack(t, testkit.StackOptions{SharedServer: true})
	for _, f := range faults {
		require.NoError(t, s.Sandbox().AddFault(f))
	}
	acts := s.Activities(nil)
	ext, err := agents.Recommender(s.GitHubURL, nil)
	require.NoError(t, err)
	acts.Tools, err = agents.BuiltinWith(acts.GitHub, ext)
	require.NoError(t, err)
	queue := testkit.Unique(t, "recommend")
	w := agentworker.NewWithActivities(s.Client(), queue, acts)
	require.NoError(t, w.Start())
	t.Cleanup(w.Stop)

	target, err := api.NewTarget(agents.TargetRecommendation, map[string]string{"city": "riverside", "party_size": "2", "budget": "150"})
	require.NoError(t, err)
	in := api.RunInput{Agent: agents.Recommend, UserID: "carol", Approvers: []string{"alice"},
		Goal: "somewhere for two to talk, about 150, coupons welcome"}.WithTarget(target)
	run, err := s.Client().ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: queue, TaskQueue: queue}, api.WorkflowName, in)
	require.NoError(t, err)
	return s, run
}

func approveAndFinish(t *testing.T, s *testkit.Stack, run client.WorkflowRun) api.RunResult {
	t.Helper()
	pending := s.WaitForApproval(t, run.GetID())
	require.Equal(t, agents.SaveRecommendation, pending.ToolName)
	require.Equal(t, api.PreviewHTTP, pending.PreviewKind, "the save reads as a request: method, URL, its picks as a table")
	s.Approve(t, run.GetID(), pending.ID)
	return s.WaitForResult(t, run)
}

func TestRecommendApprovedSavesOneRecommendationAndExplainsTheFunnel(t *testing.T) {
	t.Parallel()
	s, run := startRecommender(t)
	res := approveAndFinish(t, s, run)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Contains(t, res.Answer, "10 candidates → 6 in budget → 4 with coupons → 3 chosen.")
	require.Contains(t, res.Answer, "Saved as recommendation rec-1.")
	require.Len(t, s.Sandbox().Merchants().Recommendations(), 1)
	require.NotNil(t, res.Outcome)
	require.Len(t, res.Outcome.Posted, 1)
	saved := res.Outcome.Posted[0]
	require.Equal(t, "saved recommendation rec-1", saved.Made+" "+saved.ExternalID)
	require.Contains(t, res.Outcome.Summary, "recommendation")
	require.Contains(t, res.Outcome.Summary, "on table for 2 in riverside (budget 150)")
	snap, err := s.Snapshot(context.Background(), run.GetID())
	require.NoError(t, err)
	var status bytes.Buffer
	require.NoError(t, runview.Status(&status, run.GetID(), snap, nil))
	require.Contains(t, status.String(), "target   table for 2 in riverside (budget 150)\n", "starter status reads the run's label")
	require.NotRegexp(t, `#0\b`, status.String())
	events, err := s.Events(context.Background(), run.GetID())
	require.NoError(t, err)
	var labels []string
	for _, e := range events {
		labels = append(labels, e.Label)
	}
	for _, stage := range []string{"Searching merchants", "Checking details", "Checking coupons", "Waiting for approval to save a recommendation"} {
		require.Contains(t, labels, stage)
	}
	for _, l := range labels {
		require.NotContains(t, l, "Running ", "every stage is in words")
	}
}

func TestRecommendWithTheCouponServiceDownCompletesPartialNamingTheFailedTool(t *testing.T) {
	t.Parallel()
	s, run := startRecommender(t, ghsandbox.Fault{Op: merchantsandbox.OpGetCoupons, Mode: ghsandbox.ModeStatus, Status: 503, Count: 20})
	res := approveAndFinish(t, s, run)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Contains(t, res.Answer, "10 candidates → 6 in budget → 3 chosen.")
	require.Contains(t, res.Answer, "partial: coupons unavailable (tool get_coupons failed: ")
	require.NotContains(t, res.Answer, "coupon: ")
	snap, err := s.Snapshot(context.Background(), run.GetID())
	require.NoError(t, err)
	require.Equal(t, api.OutcomePartial, snap.Run.Outcome)
	standing := api.StandingOfRun(snap)
	require.Equal(t, "Partial", standing.Words, "every view says partial in words")
	require.Contains(t, standing.Detail, "get_coupons failed (coupons unavailable: the merchant service answered 503")
	saved := s.Sandbox().Merchants().Recommendations()
	require.Len(t, saved, 1)
	require.Contains(t, string(saved[0].Body), `"partial":true`)
}

func TestRecommendSaveWithALostResponseSavesExactlyOnce(t *testing.T) {
	t.Parallel()
	s, run := startRecommender(t, ghsandbox.Fault{Op: merchantsandbox.OpSaveRecommendation, Mode: ghsandbox.ModeDropResponse})
	res := approveAndFinish(t, s, run)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Contains(t, res.Answer, "Saved as recommendation rec-1.")
	require.Len(t, s.Sandbox().Merchants().Recommendations(), 1)
	var saves int
	for _, r := range s.Sandbox().Requests() {
		if r.Op == merchantsandbox.OpSaveRecommendation {
			saves++
		}
	}
	require.GreaterOrEqual(t, saves, 2, "the lost answer was reconciled by repeating the request")
}
