package workflows

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// The run's limits at their boundaries, and what the Temporal UI shows of its
// retries: each test here pins a number or a text that no other scenario
// reaches.

const (
	findActivity       = api.ActivityReconcileTool + ":" + api.ToolCreateIssueComment
	createActivity     = api.ActivityExecuteTool + ":" + api.ToolCreateIssueComment
	permissionActivity = "CheckRepoPermission"
)

// A lookup GitHub answers 5xx is retried by Temporal with a doubling backoff
// (1s, 2s, 4s, 8s over its five attempts), then the run asks an operator.
func TestAFailingLookupBacksOffDoublingThenWaitsForAnOperator(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	// The create's own list goes through; every lookup after it is a 502.
	h.fault(ghsandbox.Fault{Op: "list_comments", Mode: "status", Status: 502, After: 1, Count: 1000})
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		require.Equal(t, api.LabelCannotTell, snap.Label)
		st := h.commentStep(snap)
		id := h.sandbox.Comments("acme", "widgets", 1)[0].ID
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveMarkSucceeded, ExternalResourceID: itoa64(id), By: "ops"})
	}, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 5, log.attemptCount(findActivity), "the lookup's five attempts")
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, log.gaps(findActivity))
	require.Equal(t, 1, h.markedComments())
	require.Equal(t, api.StepSucceeded, h.commentStep(h.snapshot()).Status)
}

// A permission check GitHub answers 5xx backs off the same way; the decision
// it could not confirm is not applied, and the next one is checked afresh.
func TestAFailingPermissionCheckBacksOffDoublingAndAppliesNothing(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: "get_collaborator_permission", Mode: "status", Status: 502, Count: 5})
	h.approveAs("bob")
	h.whenWaiting(time.Hour, func(id string) {
		h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: id, Decision: api.DecisionApprove, Approver: "bob", RequestID: "second"})
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 6, log.attemptCount(permissionActivity), "five attempts for the first check, one for the second")
	require.Equal(t, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}, log.gaps(permissionActivity)[:4])
	require.Equal(t, []string{"approve by bob not applied: bob's permission on acme/widgets could not be checked"}, ignoredDetails(h.events()))
	require.Equal(t, 1, h.markedComments(), "the second, confirmed approval posted")
}

// One operationKey is tried exactly maxCreateAttempts times; the backoff
// between attempts doubles from 2s and stops growing at a minute, and each
// wait's timer says which attempt it precedes.
func TestAKeyThatIsNeverCreatedIsTriedTenTimesThenFails(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "status", Status: 502, Count: 1000})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError(), "the model is told and ends the run")

	require.Equal(t, 0, h.markedComments())
	st := h.commentStep(h.snapshot())
	require.Equal(t, api.StepFailed, st.Status)
	require.Equal(t, maxCreateAttempts, st.Attempt)
	require.Equal(t, "not created after 10 attempts; giving up", st.Error)
	require.Equal(t, maxCreateAttempts, log.attemptCount(createActivity), "one activity per attempt, never retried by Temporal")

	var waits []string
	for _, e := range h.events() {
		if e.Type == api.EventRunStatus && strings.HasPrefix(e.Detail, "waiting ") {
			waits = append(waits, e.Detail)
		}
	}
	require.Equal(t, []string{"waiting 2s", "waiting 4s", "waiting 8s", "waiting 16s", "waiting 32s",
		"waiting 1m0s", "waiting 1m0s", "waiting 1m0s"}, waits)
	var backoffs []string
	for _, s := range withPrefix(log.timerSummaries(), "Wait ") {
		if !strings.HasSuffix(s, ", then look again for the comment") {
			backoffs = append(backoffs, s)
		}
	}
	// Each 502 proves nothing: the gate holds every resend until the
	// attempt before could no longer land (gate.go).
	window := demoInput().ToolTimeout + api.ToolSpec{}.ResendMargin()
	sent := log.starts(createActivity)
	require.Len(t, sent, maxCreateAttempts)
	for i := 1; i < len(sent); i++ {
		require.GreaterOrEqual(t, sent[i].Sub(sent[i-1]), window, "attempt %d sent before attempt %d could no longer land", i+1, i)
	}
	require.Equal(t, []string{
		"Wait 2s before posting attempt 3", "Wait 4s before posting attempt 4", "Wait 8s before posting attempt 5",
		"Wait 16s before posting attempt 6", "Wait 32s before posting attempt 7", "Wait 1m before posting attempt 8",
		"Wait 1m before posting attempt 9", "Wait 1m before posting attempt 10",
	}, backoffs)
	summaries := log.activitySummaries(createActivity)
	require.Len(t, summaries, maxCreateAttempts)
	for i, s := range summaries {
		require.Equal(t, fmt.Sprintf("Run create_issue_comment alice approved on acme/widgets#1 (operationKey %s:5, attempt %d)", testRunID, i+1), s)
	}
}

func withPrefix(list []string, prefix string) []string {
	var out []string
	for _, s := range list {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// A run without approvers queues decisions for their permission check; the
// queue holds maxQueuedDecisions, and the one past it is refused at once.
func TestTheDecisionPastAFullPermissionQueueIsRefused(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		// The loop takes bob's at once and checks it; the rest queue behind it.
		h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: id, Decision: api.DecisionApprove, Approver: "bob", RequestID: "bob"})
		for i := 0; i <= maxQueuedDecisions; i++ {
			h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: id, Decision: api.DecisionApprove, Approver: "mallory", RequestID: fmt.Sprint(i)})
		}
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Len(t, permissionSteps(snap), 1, "only bob's decision was checked")
	ignored := ignoredDetails(h.events())
	require.Len(t, ignored, maxQueuedDecisions+1)
	require.Equal(t, "approve by mallory: 100 decisions already wait for a permission check", ignored[0])
	settled, _ := api.ActionOpen(snap.PendingAction, h.env.Now())
	for _, why := range ignored[1:] {
		require.Equal(t, "approve by mallory: "+settled, why)
	}
}

// continueAsNewDue: a history exactly at the threshold starts afresh; one
// event short of it does not.
func TestAHistoryExactlyAtTheThresholdContinuesAsNew(t *testing.T) {
	for _, length := range []int{11, 12} {
		h := newHarness(t)
		in := demoInput()
		in.HistoryThreshold = 12
		h.env.SetCurrentHistoryLength(length)
		h.approveWhenWaiting()
		h.run(in)
		if length < in.HistoryThreshold {
			require.NoError(t, h.env.GetWorkflowError(), "history length %d", length)
			require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
			continue
		}
		require.True(t, isContinueAsNew(h.env.GetWorkflowError()), "history length %d: %v", length, h.env.GetWorkflowError())
		require.Equal(t, 1, h.snapshot().Run.Generation)
	}
}

func isContinueAsNew(err error) bool {
	var can *workflow.ContinueAsNewError
	return errors.As(err, &can)
}
