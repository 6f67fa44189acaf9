package workflows

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// followUpConversation answers each call of the earlier conversation once:
// an action in doubt with what is known of it, whatever the earlier run
// answered ("failed: abandoned by ops" would read as not done), a call the
// earlier run never answered as not run, and every other answer as it was.
func TestAFollowUpsOpeningAnswersEachEarlierCallOnceAndNeverAnActionInDoubtAsNotDone(t *testing.T) {
	posted := api.InDoubtAction{RunID: "run-1", StepID: "step-5", CallID: "c-posted", Tool: api.ToolCreateIssueComment,
		OperationKey: "run-1:5", Target: "acme/widgets#1", Why: "abandoned by ops: no way to tell"}
	lost := api.InDoubtAction{RunID: "run-1", StepID: "step-6", CallID: "c-lost", Tool: api.ToolCreateIssueComment,
		OperationKey: "run-1:6", Target: "acme/widgets#1", Why: "no look could tell whether it was posted"}
	earlier := []api.Message{
		{Role: api.RoleSystem, Content: "system"},
		{Role: api.RoleUser, Content: "review"},
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{
			{ID: "c-read", Name: api.ToolGetPullRequest},
			{ID: "c-posted", Name: api.ToolCreateIssueComment},
		}},
		{Role: api.RoleTool, ToolCallID: "c-read", Name: api.ToolGetPullRequest, Content: "the pull request"},
		{Role: api.RoleTool, ToolCallID: "c-posted", Name: api.ToolCreateIssueComment, Content: "failed: abandoned by ops"},
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{
			{ID: "c-lost", Name: api.ToolCreateIssueComment},
			{ID: "c-never", Name: api.ToolListPullRequestFiles},
		}},
		// A user message that happens to name an in-doubt call is not its
		// answer.
		{Role: api.RoleUser, ToolCallID: "c-posted", Content: "a person's words"},
	}

	got := followUpConversation(earlier, []api.InDoubtAction{posted, lost}, "say it shorter")

	want := []api.Message{
		earlier[0], earlier[1], earlier[2], earlier[3],
		{Role: api.RoleTool, ToolCallID: "c-posted", Name: api.ToolCreateIssueComment, Content: posted.Answer()},
		earlier[5],
		{Role: api.RoleTool, ToolCallID: "c-lost", Name: api.ToolCreateIssueComment, Content: lost.Answer()},
		{Role: api.RoleTool, ToolCallID: "c-never", Name: api.ToolListPullRequestFiles, Content: unansweredCallNote},
		earlier[6],
		{Role: api.RoleUser, Content: "Follow-up on the same target.\nGoal: say it shorter"},
	}
	require.Equal(t, want, got)
	require.Equal(t, "failed: abandoned by ops", earlier[4].Content, "the earlier conversation is not changed")
}

// A call answered twice in the earlier conversation, or named by two
// assistant messages, is answered in the follow-up as it was, never again.
func TestAFollowUpsOpeningAddsNoSecondAnswer(t *testing.T) {
	earlier := []api.Message{
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{{ID: "c-1", Name: api.ToolGetPullRequest}}},
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{{ID: "c-1", Name: api.ToolGetPullRequest}, {ID: "c-2", Name: api.ToolGetPullRequest}}},
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{{ID: "c-2", Name: api.ToolGetPullRequest}}},
	}
	got := followUpConversation(earlier, nil, "again")
	require.Equal(t, []api.Message{
		earlier[0],
		{Role: api.RoleTool, ToolCallID: "c-1", Name: api.ToolGetPullRequest, Content: unansweredCallNote},
		earlier[1],
		{Role: api.RoleTool, ToolCallID: "c-2", Name: api.ToolGetPullRequest, Content: unansweredCallNote},
		earlier[2],
		{Role: api.RoleUser, Content: api.FollowUpMessage("again")},
	}, got)
}
