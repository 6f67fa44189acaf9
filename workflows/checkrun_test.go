package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

const demoHead = "9f3c2a71d4e85b06c1f7a2d39e4b58c60a1d7e42"

func checkInput() api.RunInput {
	in := demoInput()
	in.CheckRun = &api.CheckRunInput{}
	return in
}

func (h *harness) requestsFor(op string) int {
	n := 0
	for _, r := range h.sandbox.Requests() {
		if r.Op == op {
			n++
		}
	}
	return n
}

func (h *harness) approveAsAlice() {
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
}

// TestACheckRunFollowsTheRunAndCompletesWithItsConclusion: the check is
// created once, shows the waiting label with buttons bound to the action,
// and ends completed/success with the buttons gone.
func TestACheckRunFollowsTheRunAndCompletesWithItsConclusion(t *testing.T) {
	h := newHarness(t)
	h.approveAsAlice()
	h.runPostingOnce(checkInput(), 1)

	checks := h.sandbox.CheckRuns("acme", "widgets", demoHead)
	require.Len(t, checks, 1)
	c := checks[0]
	require.Equal(t, testRunID, c.ExternalID)
	require.Equal(t, "completed", c.Status)
	require.Equal(t, api.ConclusionSuccess, c.Conclusion)
	require.Empty(t, c.Actions)
	shown := strings.Join(c.Shown, "\n")
	require.Contains(t, shown, "in_progress: "+api.LabelWaitingApproval+" [Approve] [Reject]")
	require.True(t, strings.HasSuffix(shown, "completed/success: "+api.LabelDone), shown)
	require.Equal(t, 1, h.requestsFor(ghsandbox.OpCreateCheckRun))
	require.Equal(t, 1, h.requestsFor(ghsandbox.OpListCheckRuns), "only the first send looks for the check")
}

// TestARejectedRunsCheckEndsNeutral: nothing posted is neutral, never success.
func TestARejectedRunsCheckEndsNeutral(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionReject, "alice", "no") })
	h.runPostingNothing(checkInput())
	checks := h.sandbox.CheckRuns("acme", "widgets", demoHead)
	require.Len(t, checks, 1)
	require.Equal(t, api.ConclusionNeutral, checks[0].Conclusion)
}

// TestACheckGitHubRefusesNeverFailsTheRunAndIsNotAskedAgain: a token that
// may not write checks (GitHub's 403) costs one request; the run posts and
// completes as it would without a check.
func TestACheckGitHubRefusesNeverFailsTheRunAndIsNotAskedAgain(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpCreateCheckRun, Mode: ghsandbox.ModeStatus, Status: 403, Count: 100}))
	h.approveAsAlice()
	h.runPostingOnce(checkInput(), 1)
	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Equal(t, 1, h.requestsFor(ghsandbox.OpCreateCheckRun))
	require.Empty(t, h.sandbox.CheckRuns("acme", "widgets", demoHead))
}

// TestACheckGitHubKeepsFailingNeverBlocksTheRun: every check request
// answers 502; each state is retried, then left, and the run posts and
// completes all the same.
func TestACheckGitHubKeepsFailingNeverBlocksTheRun(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpListCheckRuns, Mode: ghsandbox.ModeStatus, Status: 502, Count: 10000}))
	h.approveAsAlice()
	h.runPostingOnce(checkInput(), 1)
	require.Equal(t, api.RunCompleted, h.snapshot().Run.Status)
	require.Greater(t, h.requestsFor(ghsandbox.OpListCheckRuns), 1, "retried")
	require.Empty(t, h.sandbox.CheckRuns("acme", "widgets", demoHead))
}

// TestTheChecksTitleIsTheRunsLabel: while the run reconciles, the check
// says it is checking whether the review was already posted, never that
// it posts again; while an action waits it carries the buttons of that
// action as it is.
func TestTheChecksTitleIsTheRunsLabel(t *testing.T) {
	review := api.ToolWords{Noun: "review", Verb: "post", Past: "posted"}
	cp := api.Checkpoint{Run: api.Run{ID: "r1", Status: api.RunReconciling}, Label: review.Checking()}
	in := api.RunInput{Repo: "acme/widgets", PullNumber: 1, Agent: "pr-review"}
	want := checkWant(&cp, in, false)
	require.Equal(t, "Checking whether the review was already posted", want.Title)
	require.Equal(t, api.CheckInProgress, want.Status)
	require.Empty(t, want.Buttons)
	require.NotContains(t, strings.ToLower(want.Title+want.Summary), "again")

	cp.Run.Status, cp.Label = api.RunWaitingForUser, api.LabelWaitingApproval
	cp.Actions = []*api.PendingAction{{ID: "act-1", ToolName: api.ToolCreateIssueComment, ArgsHash: "h1", State: api.ActionWaiting, Target: "acme/widgets#1", Words: &api.ToolWords{Noun: "comment", Verb: "post", Past: "posted"}}}
	want = checkWant(&cp, in, false)
	require.Equal(t, []api.CheckButton{
		{Label: "Approve", Description: "Post a comment", Identifier: api.CheckButtonID(api.DecisionApprove, "act-1", "h1")},
		{Label: "Reject", Description: "Do not post a comment", Identifier: api.CheckButtonID(api.DecisionReject, "act-1", "h1")},
	}, want.Buttons)
	for _, b := range want.Buttons {
		require.LessOrEqual(t, len(b.Identifier), ghsandbox.MaxCheckActionIdentifier)
	}
}

// TestWhileTheRunReconcilesItsCheckSaysItIsChecking: a lost comment answer
// sends the run to reconcile, held long enough for the check to show it;
// the check says it is checking whether the comment was already posted,
// and no state it showed speaks of posting again.
func TestWhileTheRunReconcilesItsCheckSaysItIsChecking(t *testing.T) {
	h := newHarness(t)
	require.NoError(t, h.sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse}))
	// The attempt's own look first passes; the reconcile's look is held.
	require.NoError(t, h.sandbox.AddFault(ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeDelay, DelayMs: 1500, After: 1}))
	h.approveAsAlice()
	h.runPostingOnce(checkInput(), 1)

	checks := h.sandbox.CheckRuns("acme", "widgets", demoHead)
	require.Len(t, checks, 1)
	shown := strings.Join(checks[0].Shown, "\n")
	require.Contains(t, shown, "in_progress: "+api.LabelReconciling, shown)
	require.NotContains(t, strings.ToLower(shown), "again")
	require.True(t, strings.HasSuffix(shown, "completed/success: "+api.LabelDone), shown)
}
