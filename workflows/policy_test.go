package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// The approval policy (policy.go) in the testsuite, against the sandbox's
// collaborators: alice admin, bob write, mallory read.

func permissionSteps(snap api.RunSnapshot) []api.AgentStep {
	var out []api.AgentStep
	for _, st := range snap.Steps {
		if st.IsPermissionCheck() {
			out = append(out, st)
		}
	}
	return out
}

func ignoredDetails(events []api.Event) []string {
	var out []string
	for _, e := range eventsWith(events, func(e api.Event) bool { return e.Type == api.EventSignalIgnored }) {
		out = append(out, e.Detail)
	}
	return out
}

func TestReadOnlyUserCannotApproveThroughARawSignal(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "mallory", "") })
	h.whenWaiting(2*time.Minute, func(id string) {
		snap := h.snapshot()
		require.Equal(t, api.ActionWaiting, snap.PendingAction.State, "mallory's approval changed nothing")
		require.Equal(t, 0, h.markedComments())
		h.decide(id, api.DecisionApprove, "bob", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments(), "only bob's approval posted")
	snap := h.snapshot()
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Equal(t, []string{"mallory has read permission on acme/widgets; deciding needs write"}, ignoredDetails(h.events()))
	checks := permissionSteps(snap)
	require.Len(t, checks, 2, "each decider's permission is a step")
	require.JSONEq(t, `{"permission":"read"}`, string(checks[0].SafeOutput))
	require.JSONEq(t, `{"permission":"write"}`, string(checks[1].SafeOutput))
	require.Equal(t, api.StepSucceeded, checks[0].Status, "the check itself succeeded; its answer refused the decision")
	requireLegalHistory(t, h.events())
}

func TestListedApproversSkipThePermissionCheck(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	// The run's own list is the policy: mallory is listed, so she may
	// approve whatever GitHub says of her.
	in.Approvers = []string{"mallory"}
	h.approveAs("mallory")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Empty(t, permissionSteps(h.snapshot()))
}

func (h *harness) approveAs(login string) {
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, login, "") })
}

func TestDecisionsWaitingForAPermissionCheckAreJudgedInOrder(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.decide(id, api.DecisionApprove, "mallory", "")
		h.decide(id, api.DecisionReject, "bob", "too harsh")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.ActionRejected, snap.PendingAction.State)
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	settled, _ := api.ActionOpen(snap.PendingAction, h.env.Now())
	require.Equal(t, "the action was already rejected by bob at "+snap.PendingAction.DecidedAt.UTC().Format(time.RFC3339), settled)
	require.Equal(t, []string{
		"mallory has read permission on acme/widgets; deciding needs write",
		"approve by alice: " + settled,
	}, ignoredDetails(h.events()))
	require.Len(t, permissionSteps(snap), 2, "alice's approval needs no check once the action is settled")
	requireLegalHistory(t, h.events())
}

func TestExpiryWinsOverAPermissionCheckStillRunning(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(api.RepoPermission{Permission: "write"}, nil).After(3 * time.Hour)
	in := demoInput()
	in.ApprovalTimeout = 2 * time.Hour
	h.approveAs("bob")
	snap := h.runPostingNothing(in)
	h.requireExpiredUndecided(snap)
	require.Equal(t, []string{"approve by bob was not confirmed before the action expired"}, ignoredDetails(h.events()))
	checks := permissionSteps(snap)
	require.Len(t, checks, 1)
	require.Equal(t, api.StepFailed, checks[0].Status)
	requireLegalHistory(t, h.events())
}

func TestPermissionCheckThatFailsAppliesNothing(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(api.RepoPermission{}, temporal.NewNonRetryableApplicationError("permission: 401 Bad credentials", api.ErrTypeGitHubRejected, nil))
	in := demoInput()
	in.ApprovalTimeout = time.Hour
	h.approveAs("bob")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	require.Equal(t, api.ActionExpired, h.snapshot().PendingAction.State)
	require.Equal(t, []string{"approve by bob not applied: bob's permission on acme/widgets could not be checked"}, ignoredDetails(h.events()))
}

// Decisions still queued when a run continues as new travel in the
// checkpoint, and the next run checks them in order before anything else.
func TestQueuedDecisionsCarriedAcrossContinueAsNewAreCheckedInOrder(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	in := checkpointWaitingForApproval(t, sandbox)
	pa := in.Checkpoint.Actions[len(in.Checkpoint.Actions)-1]
	in.Checkpoint.QueuedDecisions = []api.ApprovalSignal{
		{ActionID: pa.ID, Decision: api.DecisionApprove, Approver: "mallory"},
		{ActionID: pa.ID, Decision: api.DecisionApprove, Approver: "bob"},
	}
	in.HistoryThreshold = api.DefaultHistoryThreshold

	h := newHarnessWith(t, sandbox)
	h.env.SetContinuedExecutionRunID("previous-generation")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Len(t, permissionSteps(snap), 2)
	newEvents := eventsWith(h.events(), func(e api.Event) bool { return e.Sequence > in.Checkpoint.EventSequence })
	require.Equal(t, []string{"mallory has read permission on acme/widgets; deciding needs write"}, ignoredDetails(newEvents))
}

func TestCancelDuringAPermissionCheckPostsNothingAndSaysSo(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(api.RepoPermission{Permission: "write"}, nil).After(time.Hour)
	h.approveAs("bob")
	h.env.RegisterDelayedCallback(h.env.CancelWorkflow, 30*time.Minute)
	h.run(demoInput())
	require.True(t, temporal.IsCanceledError(h.env.GetWorkflowError()), "%v", h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	checks := permissionSteps(snap)
	require.Len(t, checks, 1)
	require.Equal(t, api.StepFailed, checks[0].Status)
	require.Equal(t, []string{"approve by bob was not applied: the run was cancelled"}, ignoredDetails(h.events()))
	requireLegalHistory(t, h.events())
}

// GitHub refusing the approved comment is what failed; the review itself was
// done, so the run completes and its outcome says what went wrong.
