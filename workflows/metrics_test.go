package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uber-go/tally/v4"
	sdktally "go.temporal.io/sdk/contrib/tally"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
)

// newMeteredHarness is newHarness with the testsuite counting into a tally
// test scope, as a worker's handler would.
func newMeteredHarness(t *testing.T) (*harness, tally.TestScope) {
	t.Helper()
	scope := tally.NewTestScope("", nil)
	var suite testsuite.WorkflowTestSuite
	suite.SetMetricsHandler(sdktally.NewMetricsHandler(scope))
	return newHarnessOn(t, &suite, ghsandbox.New(ghsandbox.DefaultFixture()), offline.NewReviewer()), scope
}

// counted sums the counters called name whose tags include tags.
func counterValue(scope tally.TestScope, name string, tags map[string]string) int64 {
	var sum int64
	for _, c := range scope.Snapshot().Counters() {
		if c.Name() != name {
			continue
		}
		match := true
		for k, v := range tags {
			match = match && c.Tags()[k] == v
		}
		if match {
			sum += c.Value()
		}
	}
	return sum
}

func TestAnUnansweredApprovalCountsAsExpiredNotDecided(t *testing.T) {
	h, scope := newMeteredHarness(t)
	in := demoInput()
	in.ApprovalTimeout = time.Hour
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.EqualValues(t, 1, counterValue(scope, api.MetricRunsStarted, map[string]string{"agent": api.DefaultAgent}))
	require.EqualValues(t, 1, counterValue(scope, api.MetricApprovalsRequested, nil))
	require.EqualValues(t, 1, counterValue(scope, api.MetricApprovalsExpired, nil))
	require.EqualValues(t, 0, counterValue(scope, api.MetricApprovalsDecided, nil))
	require.EqualValues(t, 1, counterValue(scope, api.MetricRunsEnded, map[string]string{"status": string(api.RunCompleted)}))
	require.Greater(t, counterValue(scope, activities.MetricModelTokens, map[string]string{"kind": "prompt"}), int64(0))
}

func TestALostResponseCountsOneReconciliationThatFoundTheComment(t *testing.T) {
	h, scope := newMeteredHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.EqualValues(t, 1, counterValue(scope, api.MetricReconciliations, map[string]string{"outcome": api.ReconcileFound}))
	require.EqualValues(t, 1, counterValue(scope, api.MetricReconciliations, nil))
	require.EqualValues(t, 1, counterValue(scope, api.MetricApprovalsDecided, map[string]string{"decision": string(api.DecisionApprove)}))
}
