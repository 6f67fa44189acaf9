package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// builtinWords are a built-in tool's words, as its step records them.
func builtinWords(t *testing.T, tool string) *api.ToolWords {
	t.Helper()
	tl, ok := agents.MustBuiltin(nil).Tool(tool)
	require.True(t, ok, tool)
	w := tl.Spec().Words.Or(tool)
	return &w
}

func TestTheOutcomeOfATriageNamesEveryKindOfActionDoneAndDeclined(t *testing.T) {
	expiry := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	labels, issue := builtinWords(t, api.ToolAddLabels), builtinWords(t, api.ToolCreateIssue)
	cp := &api.Checkpoint{
		Run: api.Run{Repo: "acme/widgets", PullNumber: 1, Status: api.RunCompleted},
		Steps: []*api.AgentStep{
			{ID: "step-5", Type: api.StepToolCall, ToolName: api.ToolAddLabels, OperationKey: "r:5", Status: api.StepSucceeded, Words: labels,
				ExternalResourceID: "docs,go", SafeOutput: []byte(`{"labels":["docs","go"],"url":"https://github.com/acme/widgets/pull/1"}`)},
			{ID: "step-6", Type: api.StepToolCall, ToolName: api.ToolCreateIssue, OperationKey: "r:6", Status: api.StepSucceeded, Words: issue, ExternalResourceID: "12"},
			{ID: "step-7", Type: api.StepToolCall, ToolName: api.ToolCreateIssue, OperationKey: "r:7", Status: api.StepSucceeded, Words: issue, ExternalResourceID: "13"},
			{ID: "step-8", Type: api.StepToolCall, ToolName: api.ToolCreateIssue, OperationKey: "r:8", Status: api.StepRejected, Words: issue},
			{ID: "step-9", Type: api.StepToolCall, ToolName: "stamp", OperationKey: "r:9", Status: api.StepExpired},
		},
		Actions: []*api.PendingAction{
			{ID: "act-1", StepID: "step-6", ToolName: api.ToolCreateIssue, Target: "acme/widgets (new issue)", State: api.ActionApproved, DecidedBy: "alice"},
			{ID: "act-2", StepID: "step-7", ToolName: api.ToolCreateIssue, Target: "acme/widgets (new issue)", State: api.ActionApproved, DecidedBy: "alice"},
			{ID: "act-3", StepID: "step-8", ToolName: api.ToolCreateIssue, Target: "acme/widgets (new issue)", State: api.ActionRejected, DecidedBy: "bob", Reason: "dup"},
			{ID: "act-4", StepID: "step-9", ToolName: "stamp", Target: "acme/widgets", State: api.ActionExpired, ExpiresAt: expiry},
		},
	}

	o := outcomeOf(cp)

	// "stamp" recorded no words: they come from its name.
	require.Equal(t, "Made 1 label change and opened 2 issues on acme/widgets#1; an issue rejected by bob; a stamp call expired without a decision", o.Summary)
	require.Len(t, o.Posted, 3)
	require.Equal(t, api.PostedOutcome{StepID: "step-5", Tool: api.ToolAddLabels, Target: "acme/widgets#1", ExternalID: "docs,go",
		URL: "https://github.com/acme/widgets/pull/1", Made: "made label change"}, o.Posted[0])
	require.Equal(t, "opened issue", o.Posted[1].Made)
	require.Equal(t, "act-1", o.Posted[1].ActionID)
	require.Equal(t, "alice", o.Posted[1].ApprovedBy)
	require.Zero(t, o.Posted[1].CommentID, "an issue number is no comment ID")
	require.Equal(t, []api.DeclinedOutcome{
		{StepID: "step-8", ActionID: "act-3", Tool: api.ToolCreateIssue, Target: "acme/widgets (new issue)", State: api.ActionRejected, By: "bob", Reason: "dup", Noun: "issue"},
		{StepID: "step-9", ActionID: "act-4", Tool: "stamp", Target: "acme/widgets", State: api.ActionExpired, Noun: "stamp call"},
	}, o.Declined)
}

func TestTheUIShowsTheFirstWaitingActionOfARunAndWhatItIs(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	cp := &api.Checkpoint{
		Run: api.Run{Repo: "acme/widgets", PullNumber: 1, Status: api.RunWaitingForUser, Approvers: []string{"alice", "bob"}},
		Actions: []*api.PendingAction{
			{ID: "act-1", ToolName: api.ToolAddLabels, State: api.ActionApproved},
			{ID: "act-2", ToolName: api.ToolCreateIssue, Words: builtinWords(t, api.ToolCreateIssue), Target: "acme/widgets (new issue)", State: api.ActionWaiting, ExpiresAt: now.Add(23 * time.Hour)},
			{ID: "act-3", ToolName: api.ToolCreateIssue, Target: "acme/widgets (new issue)", State: api.ActionWaiting, ExpiresAt: now.Add(time.Hour)},
		},
	}

	require.Equal(t, "Waiting for alice or bob to approve an issue on acme/widgets (new issue), 23h left", uiDetails(cp, now))
}
