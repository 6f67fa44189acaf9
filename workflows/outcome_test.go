package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sdkpb "go.temporal.io/api/sdk/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// Outcomes (outcome.go): what a run posted, what people declined, what
// failed; and what the Temporal UI shows of a run.

func TestRunThatCannotReadItsPullRequestFails(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.PullNumber = 99
	err := h.runFailing(in, "could not read the input (get_pull_request)")
	require.Contains(t, err.Error(), "404")
	snap := h.snapshot()
	require.Equal(t, api.RunFailed, snap.Run.Status)
	require.Empty(t, snap.Actions)
	o := snap.Outcome
	require.Empty(t, o.Posted)
	// The model asked for both reads in one turn, so both ran (together)
	// before the first one's failure ended the run.
	require.Len(t, o.Failed, 3)
	require.Equal(t, api.ToolGetPullRequest, o.Failed[0].What)
	require.Contains(t, o.Failed[0].Error, "404")
	require.Equal(t, api.ToolListPullRequestFiles, o.Failed[1].What)
	require.Equal(t, api.FailedOutcome{What: "run", Error: snap.Run.Error}, o.Failed[2])
	require.True(t, strings.HasPrefix(o.Summary, "Nothing done on acme/widgets#99; 2 steps failed; run failed: could not read the input"), o.Summary)
	requireLegalHistory(t, h.events())
}

func TestOutcomeNamesThePostedCommentWithItsLink(t *testing.T) {
	h := newHarness(t)
	h.approveAs("alice")
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	var res api.RunResult
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
	h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionReject, "bob", "too harsh") })
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	o := h.snapshot().Outcome
	require.Equal(t, "Nothing posted on acme/widgets#1; a comment rejected by bob", o.Summary)
	require.Len(t, o.Declined, 1)
	require.Equal(t, api.ActionRejected, o.Declined[0].State)
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
	require.Equal(t, api.ActionExpired, o.Declined[0].State)
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
				h.env.SignalWorkflow(api.SignalRefusal, api.RefusalSignal{ActionID: id, Who: "eve", Channel: "test", Reason: "no"})
			})
			h.whenWaiting(time.Hour+time.Second, func(id string) {
				require.Equal(t, tc.want, h.currentDetails())
				h.decide(id, api.DecisionApprove, "alice", "")
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
		require.Equal(t, want, api.HumanDuration(d), "%s", d)
	}
}

func TestStaticSummary(t *testing.T) {
	require.Equal(t, "Review acme/widgets#1 for alice", api.StaticSummary(api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "alice"}))
	require.Equal(t, "Review acme/widgets#2 for bob: security only",
		api.StaticSummary(api.RunInput{Repo: "acme/widgets", PullNumber: 2, UserID: "bob", Goal: "security only"}))
}

func TestOutcomeNamesACommentGitHubRefused(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 422})
	h.approveWhenWaiting()
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	o := snap.Outcome
	require.Empty(t, o.Posted)
	require.Len(t, o.Failed, 1)
	require.Equal(t, h.commentStep(snap).ID, o.Failed[0].StepID)
	require.Equal(t, api.ToolCreateIssueComment, o.Failed[0].What)
	require.Contains(t, o.Failed[0].Error, "422")
	require.Equal(t, "Nothing posted on acme/widgets#1; 1 step failed", o.Summary)
}
