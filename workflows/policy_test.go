package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// The approval policy (policy.go) in the testsuite, against the sandbox's
// collaborators: alice admin, bob write, mallory read.

func permissionSteps(snap RunSnapshot) []AgentStep {
	var out []AgentStep
	for _, st := range snap.Steps {
		if st.Type == StepPermissionCheck {
			out = append(out, st)
		}
	}
	return out
}

func ignoredDetails(events []Event) []string {
	var out []string
	for _, e := range eventsWith(events, func(e Event) bool { return e.Type == EventSignalIgnored }) {
		out = append(out, e.Detail)
	}
	return out
}

func TestReadOnlyUserCannotApproveThroughARawSignal(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, DecisionApprove, "mallory", "") })
	h.whenWaiting(2*time.Minute, func(id string) {
		snap := h.snapshot()
		require.Equal(t, ActionWaiting, snap.PendingAction.State, "mallory's approval changed nothing")
		require.Equal(t, 0, h.markedComments())
		h.decide(id, DecisionApprove, "bob", "")
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
	require.Equal(t, StepSucceeded, checks[0].Status, "the check itself succeeded; its answer refused the decision")
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
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, DecisionApprove, login, "") })
}

func TestDecisionsWaitingForAPermissionCheckAreJudgedInOrder(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.decide(id, DecisionApprove, "mallory", "")
		h.decide(id, DecisionReject, "bob", "too harsh")
		h.decide(id, DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, ActionRejected, snap.PendingAction.State)
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Equal(t, []string{
		"mallory has read permission on acme/widgets; deciding needs write",
		"duplicate: the action was already rejected by bob",
	}, ignoredDetails(h.events()))
	require.Len(t, permissionSteps(snap), 2, "alice's approval needs no check once the action is settled")
	requireLegalHistory(t, h.events())
}

func TestExpiryWinsOverAPermissionCheckStillRunning(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(activities.RepoPermission{Permission: "write"}, nil).After(3 * time.Hour)
	in := demoInput()
	in.ApprovalTimeout = 2 * time.Hour
	h.approveAs("bob")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, ActionExpired, snap.PendingAction.State)
	require.Empty(t, snap.PendingAction.DecidedBy)
	require.Equal(t, StepExpired, h.commentStep(snap).Status)
	require.Equal(t, []string{"approve by bob was not confirmed before the action expired"}, ignoredDetails(h.events()))
	checks := permissionSteps(snap)
	require.Len(t, checks, 1)
	require.Equal(t, StepFailed, checks[0].Status)
	requireLegalHistory(t, h.events())
}

func TestPermissionCheckThatFailsAppliesNothing(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(activities.RepoPermission{}, temporal.NewNonRetryableApplicationError("permission: 401 Bad credentials", activities.ErrTypeGitHubRejected, nil))
	in := demoInput()
	in.ApprovalTimeout = time.Hour
	h.approveAs("bob")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	require.Equal(t, ActionExpired, h.snapshot().PendingAction.State)
	require.Equal(t, []string{"approve by bob not applied: bob's permission on acme/widgets could not be checked"}, ignoredDetails(h.events()))
}

// A run from before the policy batch replays its old rule: with no approvers
// listed, the approval layer's word was final.
func TestRunFromBeforeThePolicyBatchTakesAnyApprover(t *testing.T) {
	h := newHarness(t)
	h.env.OnGetVersion(policyChangeID, workflow.DefaultVersion, policyVersion).Return(workflow.DefaultVersion)
	h.approveAs("mallory")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 1, h.markedComments())
	require.Empty(t, permissionSteps(h.snapshot()))
}

func TestRunThatCannotReadItsPullRequestFails(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.PullNumber = 99
	h.run(in)

	err := h.env.GetWorkflowError()
	require.Error(t, err)
	require.Contains(t, err.Error(), "could not read the input (get_pull_request)")
	require.Contains(t, err.Error(), "404")
	snap := h.snapshot()
	require.Equal(t, RunFailed, snap.Run.Status)
	require.Empty(t, snap.Actions)
	o := snap.Outcome
	require.Empty(t, o.Posted)
	require.Len(t, o.Failed, 2)
	require.Equal(t, activities.ToolGetPullRequest, o.Failed[0].What)
	require.Contains(t, o.Failed[0].Error, "404")
	require.Equal(t, FailedOutcome{What: "run", Error: snap.Run.Error}, o.Failed[1])
	require.True(t, strings.HasPrefix(o.Summary, "Nothing posted on acme/widgets#99; 1 step failed; run failed: could not read the input"), o.Summary)
	requireLegalHistory(t, h.events())
}

func TestRunFromBeforeThePolicyBatchCompletesWithoutItsPullRequest(t *testing.T) {
	h := newHarness(t)
	h.env.OnGetVersion(policyChangeID, workflow.DefaultVersion, policyVersion).Return(workflow.DefaultVersion)
	in := demoInput()
	in.PullNumber = 99
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, RunCompleted, h.snapshot().Run.Status)
}

func TestOutcomeNamesThePostedCommentWithItsLink(t *testing.T) {
	h := newHarness(t)
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	var res RunResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	snap := h.snapshot()
	require.Equal(t, &snap.Outcome, res.Outcome, "the result carries the snapshot's outcome")
	o := snap.Outcome
	require.Equal(t, "Posted 1 comment on acme/widgets#1", o.Summary)
	require.Len(t, o.Posted, 1)
	p := o.Posted[0]
	require.Equal(t, snap.PendingAction.ID, p.ActionID)
	require.Equal(t, "alice", p.ApprovedBy)
	require.Equal(t, "acme/widgets#1", p.Target)
	comments := h.sandbox.Comments("acme", "widgets", 1)
	posted := comments[len(comments)-1]
	require.Equal(t, posted.ID, p.CommentID)
	require.NotEmpty(t, p.URL)
	require.True(t, strings.HasSuffix(p.URL, "#issuecomment-"+jsonNumber(posted.ID)), p.URL)
	require.Empty(t, o.Declined)
	require.Empty(t, o.Failed)
}

func jsonNumber(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func TestOutcomeNamesWhoRejectedTheCommentAndWhy(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, DecisionReject, "bob", "too harsh") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	o := h.snapshot().Outcome
	require.Equal(t, "Nothing posted on acme/widgets#1; a comment rejected by bob", o.Summary)
	require.Len(t, o.Declined, 1)
	require.Equal(t, ActionRejected, o.Declined[0].State)
	require.Equal(t, "bob", o.Declined[0].By)
	require.Equal(t, "too harsh", o.Declined[0].Reason)
}

func TestOutcomeOfAnExpiredComment(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.ApprovalTimeout = time.Hour
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())
	o := h.snapshot().Outcome
	require.Equal(t, "Nothing posted on acme/widgets#1; a comment expired without a decision", o.Summary)
	require.Len(t, o.Declined, 1)
	require.Equal(t, ActionExpired, o.Declined[0].State)
}

func (h *harness) currentDetails() string {
	h.t.Helper()
	v, err := h.env.QueryWorkflow("__temporal_workflow_metadata")
	require.NoError(h.t, err)
	var md sdkpb.WorkflowMetadata
	require.NoError(h.t, v.Get(&md))
	return md.GetCurrentDetails()
}

func TestCurrentDetailsSayWhoMayApproveAndHowLongIsLeft(t *testing.T) {
	for name, tc := range map[string]struct {
		approvers []string
		want      string
	}{
		"listed": {[]string{"alice", "bob"}, "Waiting for alice or bob to approve a comment on acme/widgets#1, 23h left"},
		"policy": {nil, "Waiting for someone with write access to acme/widgets to approve a comment on acme/widgets#1, 23h left"},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			in := demoInput()
			in.Approvers = tc.approvers
			// A refusal is an event, and every event brings the details up
			// to the workflow's time.
			h.whenWaiting(time.Hour, func(id string) {
				h.env.SignalWorkflow(SignalRefusal, RefusalSignal{ActionID: id, Who: "eve", Channel: "test", Reason: "no"})
			})
			h.whenWaiting(time.Hour+time.Second, func(id string) {
				require.Equal(t, tc.want, h.currentDetails())
				h.decide(id, DecisionApprove, "alice", "")
			})
			h.run(in)
			require.NoError(t, h.env.GetWorkflowError())
			require.Equal(t, "Done: Posted 1 comment on acme/widgets#1", h.currentDetails())
		})
	}
}

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                             "0s",
		400 * time.Millisecond:        "1s",
		30 * time.Second:              "30s",
		45*time.Minute + time.Second:  "45m",
		2*time.Hour + 30*time.Minute:  "2h 30m",
		3 * time.Hour:                 "3h",
		23*time.Hour + 59*time.Minute: "23h",
		24 * time.Hour:                "24h",
		50 * time.Hour:                "2d 2h",
		72 * time.Hour:                "3d",
	} {
		require.Equal(t, want, humanDuration(d), "%s", d)
	}
}

func TestStaticSummary(t *testing.T) {
	require.Equal(t, "Review acme/widgets#1 for alice", StaticSummary(RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "alice"}))
	require.Equal(t, "Review acme/widgets#2 for bob: security only",
		StaticSummary(RunInput{Repo: "acme/widgets", PullNumber: 2, UserID: "bob", Goal: "security only"}))
}

// Decisions still queued when a run continues as new travel in the
// checkpoint, and the next run checks them in order before anything else.
func TestQueuedDecisionsCarriedAcrossContinueAsNewAreCheckedInOrder(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	in := checkpointWaitingForApproval(t, sandbox)
	pa := in.Checkpoint.Actions[len(in.Checkpoint.Actions)-1]
	in.Checkpoint.QueuedDecisions = []ApprovalSignal{
		{ActionID: pa.ID, Decision: DecisionApprove, Approver: "mallory"},
		{ActionID: pa.ID, Decision: DecisionApprove, Approver: "bob"},
	}
	in.HistoryThreshold = DefaultHistoryThreshold

	h := newHarnessWith(t, sandbox)
	h.env.SetContinuedExecutionRunID("previous-generation")
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, "bob", snap.PendingAction.DecidedBy)
	require.Len(t, permissionSteps(snap), 2)
	newEvents := eventsWith(h.events(), func(e Event) bool { return e.Sequence > in.Checkpoint.EventSequence })
	require.Equal(t, []string{"mallory has read permission on acme/widgets; deciding needs write"}, ignoredDetails(newEvents))
}

func TestCancelDuringAPermissionCheckPostsNothingAndSaysSo(t *testing.T) {
	h := newHarness(t)
	h.env.OnActivity(acts.CheckRepoPermission, mock.Anything, mock.Anything).
		Return(activities.RepoPermission{Permission: "write"}, nil).After(time.Hour)
	h.approveAs("bob")
	h.env.RegisterDelayedCallback(h.env.CancelWorkflow, 30*time.Minute)
	h.run(demoInput())
	require.True(t, temporal.IsCanceledError(h.env.GetWorkflowError()), "%v", h.env.GetWorkflowError())

	require.Equal(t, 0, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, RunCancelled, snap.Run.Status)
	require.Equal(t, ActionExpired, snap.PendingAction.State)
	checks := permissionSteps(snap)
	require.Len(t, checks, 1)
	require.Equal(t, StepFailed, checks[0].Status)
	require.Equal(t, []string{"approve by bob was not applied: the run was cancelled"}, ignoredDetails(h.events()))
	requireLegalHistory(t, h.events())
}

// GitHub refusing the approved comment is what failed; the review itself was
// done, so the run completes and its outcome says what went wrong.
func TestOutcomeNamesACommentGitHubRefused(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 422})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	require.Equal(t, RunCompleted, snap.Run.Status)
	o := snap.Outcome
	require.Empty(t, o.Posted)
	require.Len(t, o.Failed, 1)
	require.Equal(t, h.commentStep(snap).ID, o.Failed[0].StepID)
	require.Equal(t, activities.ToolCreateIssueComment, o.Failed[0].What)
	require.Contains(t, o.Failed[0].Error, "422")
	require.Equal(t, "Nothing posted on acme/widgets#1; 1 step failed", o.Summary)
}
