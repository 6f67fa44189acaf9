package telemetry_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/telemetry"
	"github.com/agentrun/agentrun/internal/testkit"
)

// startMetrics serves a fresh registry on a port-0 listener, as METRICS_ADDR
// does, and returns it with its /metrics URL.
func startMetrics(t *testing.T) (*telemetry.Telemetry, string) {
	t.Helper()
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{}, testkit.Listen(t), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	tel.Serve()
	t.Cleanup(func() { require.NoError(t, tel.Close(context.Background())) })
	return tel, "http://" + tel.Addr().String() + "/metrics"
}

// scrapeUntil scrapes url until done holds: tally hands counts to the
// registry once a second.
func scrapeUntil(t *testing.T, url string, done func(telemetry.Families) bool) telemetry.Families {
	t.Helper()
	var last telemetry.Families
	require.Eventually(t, func() bool {
		f, err := telemetry.Scrape(context.Background(), url)
		if err != nil {
			return false
		}
		last = f
		return done(f)
	}, 30*time.Second, 100*time.Millisecond)
	return last
}

// TestOneApprovedRunShowsInTheWorkersMetrics also checks that every metric
// the Grafana dashboard queries is in the scrape.
func TestOneApprovedRunShowsInTheWorkersMetrics(t *testing.T) {
	t.Parallel()
	tel, url := startMetrics(t)
	s := testkit.StartStack(t, testkit.StackOptions{SharedServer: true, MetricsHandler: tel.Metrics.Handler()})
	run := s.StartReview(t, s.TaskQueue)
	action := s.WaitForApproval(t, run.GetID())
	s.Approve(t, run.GetID(), action.ID)
	require.Equal(t, api.RunCompleted, s.WaitForResult(t, run).Status)

	f := scrapeUntil(t, url, func(f telemetry.Families) bool {
		return f.Value("agentrun_runs_ended_total", nil) >= 1 && f.Value("temporal_workflow_completed_total", nil) >= 1
	})

	agent := map[string]string{"agent": api.DefaultAgent}
	require.Equal(t, 1.0, f.Value("agentrun_runs_started_total", agent))
	require.Equal(t, 1.0, f.Value("agentrun_runs_ended_total", map[string]string{"agent": api.DefaultAgent, "status": "completed"}))
	require.Equal(t, 1.0, f.Value("agentrun_runs_ended_total", nil), "no other end")
	require.Equal(t, 1.0, f.Value("agentrun_approvals_requested_total", agent))
	require.Equal(t, 1.0, f.Value("agentrun_approvals_decided_total", map[string]string{"decision": "approve"}))
	require.Equal(t, 1.0, f.Value("agentrun_approval_decision_latency_seconds", map[string]string{"decision": "approve"}))
	require.Equal(t, 0.0, f.Value("agentrun_approvals_expired_total", nil))
	require.Equal(t, 0.0, f.Value("agentrun_reconciliations_total", nil))
	require.Greater(t, f.Value("agentrun_model_tokens_total", map[string]string{"kind": "prompt"}), 0.0)
	require.Greater(t, f.Value("agentrun_model_tokens_total", map[string]string{"kind": "completion"}), 0.0)
	require.Contains(t, f, "temporal_activity_execution_latency_seconds", "the SDK's own metrics share the registry")
	require.Equal(t, 1.0, f.Value("temporal_workflow_completed_total", map[string]string{"workflow_type": api.WorkflowName}))

	requireDashboardMetricsIn(t, tel, url)
}
