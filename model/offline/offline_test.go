package offline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/reviewtools"
)

// dialogue drives the reviewer the way the workflow does: it appends the
// model's decisions and the tools' results to one conversation.
type dialogue struct {
	t            *testing.T
	reviewer     *Reviewer
	tools        []api.ToolSpec
	conversation []api.Message
}

func newDialogue(t *testing.T, userMessage string) *dialogue {
	return &dialogue{t: t, reviewer: NewReviewer(), tools: reviewtools.Tools(), conversation: []api.Message{
		{Role: api.RoleSystem, Content: "You review pull requests."},
		{Role: api.RoleUser, Content: userMessage},
	}}
}

// next asks the reviewer and records its answer as the assistant message.
func (d *dialogue) next() api.ModelDecision {
	d.t.Helper()
	decision, err := d.reviewer.Next(context.Background(), d.conversation, d.tools)
	require.NoError(d.t, err)
	require.Equal(d.t, ModelName, decision.Model)
	d.conversation = append(d.conversation, api.Message{Role: api.RoleAssistant, Content: decision.Final, ToolCalls: decision.ToolCalls})
	return decision
}

// answer records a tool's result for a call.
func (d *dialogue) answer(call api.ToolCall, content string) {
	d.conversation = append(d.conversation, api.Message{Role: api.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: content})
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}

// fetchAndPropose plays the first two turns over a fixture and returns the
// proposed comment body.
func (d *dialogue) fetchAndPropose(fx pullRequestFixture) (api.ToolCall, string) {
	d.t.Helper()
	first := d.next()
	require.Empty(d.t, first.Final)
	require.Equal(d.t, []api.ToolCall{
		{ID: "call_2_get_pull_request", Name: api.ToolGetPullRequest, Arguments: json.RawMessage(`{}`)},
		{ID: "call_2_list_pull_request_files", Name: api.ToolListPullRequestFiles, Arguments: json.RawMessage(`{}`)},
	}, first.ToolCalls)
	d.answer(first.ToolCalls[0], jsonText(d.t, fx.PullRequest))
	d.answer(first.ToolCalls[1], jsonText(d.t, fx.Files))

	second := d.next()
	require.Empty(d.t, second.Final)
	require.Len(d.t, second.ToolCalls, 1)
	call := second.ToolCalls[0]
	require.Equal(d.t, "call_5_create_issue_comment", call.ID)
	require.Equal(d.t, api.ToolCreateIssueComment, call.Name)
	var args struct {
		Body string `json:"body"`
	}
	require.NoError(d.t, json.Unmarshal(call.Arguments, &args))
	return call, args.Body
}

func TestDialogueFetchesProposesAndReportsEachCommentOutcome(t *testing.T) {
	cases := []struct {
		name      string
		result    string
		wantFinal string
	}{
		{"posted", `{"commentId":12,"htmlUrl":"https://github.com/acme/widgets/pull/7#issuecomment-12","alreadyExisted":false}`,
			"Posted the review of acme/widgets#7 (12 findings) as comment 12 (https://github.com/acme/widgets/pull/7#issuecomment-12)."},
		{"found by reconciliation", `{"commentId":12,"alreadyExisted":true}`,
			"The review of acme/widgets#7 (12 findings) was already posted as comment 12; nothing new was created."},
		{"rejected", "rejected by alice: too harsh",
			`The review of acme/widgets#7 (12 findings) was not posted: "rejected by alice: too harsh".`},
		{"expired", "expired: nobody approved before 2026-06-01T10:00:00Z",
			`The review of acme/widgets#7 (12 findings) was not posted: "expired: nobody approved before 2026-06-01T10:00:00Z".`},
		{"failed", "failed: 422 Validation Failed [{Resource:IssueComment Field:body Code:too_long}]",
			`The review of acme/widgets#7 (12 findings) was not posted: "failed: 422 Validation Failed [{Resource:IssueComment Field:body Code:too_long}]".`},
		{"abandoned", "outcome unknown: the comment may have been posted on acme/widgets#7 (operationKey r:5, run r): abandoned by ops",
			`The review of acme/widgets#7 (12 findings) may have been posted; nobody saw whether it was: "outcome unknown: the comment may have been posted on acme/widgets#7 (operationKey r:5, run r): abandoned by ops".`},
		{"no comment id", `{"commentId":0}`,
			"The review of acme/widgets#7 (12 findings) may not have been posted: the comment tool returned no comment id."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDialogue(t, "Review pull request acme/widgets#7.")
			call, body := d.fetchAndPropose(loadFixture(t, "findings"))
			require.Contains(t, body, "## Review of acme/widgets#7: Add widget cache\n")
			require.Contains(t, body, "**12 findings**")
			require.Contains(t, body, "- `web/app.js` line 41: leftover debug output (`console.log(`)")

			d.answer(call, tc.result)
			last := d.next()
			require.Empty(t, last.ToolCalls)
			require.Equal(t, tc.wantFinal, last.Final)
		})
	}
}

func TestCleanPullRequestStillGetsAShortReview(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#8.\nGoal: make sure empty names are rejected")
	call, body := d.fetchAndPropose(loadFixture(t, "clean"))
	require.Contains(t, body, "## Review of acme/widgets#8: Reject empty widget names\n\nGoal: make sure empty names are rejected\n")
	require.Contains(t, body, "No findings")
	require.Contains(t, body, "What I checked: 3 files")

	d.answer(call, `{"commentId":99}`)
	require.Equal(t, "Posted the review of acme/widgets#8 (no findings) as comment 99.", d.next().Final)
}

func TestSecretsNeverReachTheCommentOrTheFinalAnswer(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#9.")
	call, body := d.fetchAndPropose(loadFixture(t, "secrets"))
	d.answer(call, "rejected by bob: remove the keys first")
	final := d.next().Final
	require.Contains(t, body, "looks like a GitHub token committed")
	for _, secret := range []string{
		"AKIAIOSFODNN7EXAMPLE", "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A", "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
		"correct-horse-battery-staple", "MIIEowIBAAKCAQEA",
	} {
		require.NotContains(t, body, secret)
		require.NotContains(t, final, secret)
	}
}

func TestTruncatedPatchIsReviewedAsFarAsItGoes(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#10.")
	_, body := d.fetchAndPropose(loadFixture(t, "truncated"))
	require.Contains(t, body, "- `gen/schema.go` line 5: new `TODO` marker")
	require.Contains(t, body, "not fully reviewed")
}

func TestSameConversationGivesTheSameDecision(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#7.\nGoal: find leftovers")
	fx := loadFixture(t, "findings")
	for turn := range 3 {
		first, err := NewReviewer().Next(context.Background(), d.conversation, d.tools)
		require.NoError(t, err)
		again, err := NewReviewer().Next(context.Background(), append([]api.Message(nil), d.conversation...), reviewtools.Tools())
		require.NoError(t, err)
		require.Equal(t, first, again, "turn %d", turn)
		require.Positive(t, first.Usage.PromptTokens)
		require.Positive(t, first.Usage.CompletionTokens)

		decision := d.next()
		switch turn {
		case 0:
			d.answer(decision.ToolCalls[0], jsonText(t, fx.PullRequest))
			d.answer(decision.ToolCalls[1], jsonText(t, fx.Files))
		case 1:
			d.answer(decision.ToolCalls[0], `{"commentId":5}`)
		}
	}
}

func TestUnusableToolResultsEndTheRunWithAnExplanation(t *testing.T) {
	fx := loadFixture(t, "findings")
	prJSON, filesJSON := jsonText(t, fx.PullRequest), jsonText(t, fx.Files)
	cases := []struct {
		name      string
		pr, files string
		wantFinal string
	}{
		{"pull request not found", "404 Not Found: no such pull request", filesJSON,
			`Could not review acme/widgets#7: get_pull_request failed: "404 Not Found: no such pull request"`},
		{"file list rate limited", prJSON, "rate limited: retry after 60s",
			`Could not review acme/widgets#7: list_pull_request_files failed: "rate limited: retry after 60s"`},
		{"pull request with a wrong field type", `{"number":"seven"}`, filesJSON,
			"Could not review acme/widgets#7: get_pull_request returned a result that is not valid JSON"},
		{"file list cut short", prJSON, `[{"filename":"a.go","patch":"@@ -1 +1 @@`,
			"Could not review acme/widgets#7: list_pull_request_files returned a result that is not valid JSON"},
		{"no files", prJSON, `[]`,
			"Nothing to review: acme/widgets#7 changes no files, so no comment was proposed."},
		{"null file list", prJSON, `null`,
			"Nothing to review: acme/widgets#7 changes no files, so no comment was proposed."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDialogue(t, "Review pull request acme/widgets#7.")
			calls := d.next().ToolCalls
			require.Len(t, calls, 2)
			d.answer(calls[0], tc.pr)
			d.answer(calls[1], tc.files)
			decision := d.next()
			require.Empty(t, decision.ToolCalls)
			require.Contains(t, decision.Final, tc.wantFinal)
		})
	}
}

func TestReviewerOnlyCallsToolsItIsOffered(t *testing.T) {
	d := newDialogue(t, "Review pull request acme/widgets#7.")
	d.tools = []api.ToolSpec{mustToolSpec(t, api.ToolGetPullRequest)}
	decision := d.next()
	require.Empty(t, decision.ToolCalls)
	require.Equal(t, "Could not review acme/widgets#7: the list_pull_request_files tool is not offered, "+
		"and the review needs get_pull_request and list_pull_request_files.", decision.Final)

	d = newDialogue(t, "Review pull request acme/widgets#7.")
	d.tools = []api.ToolSpec{mustToolSpec(t, api.ToolGetPullRequest), mustToolSpec(t, api.ToolListPullRequestFiles)}
	fx := loadFixture(t, "clean")
	calls := d.next().ToolCalls
	d.answer(calls[0], jsonText(t, fx.PullRequest))
	d.answer(calls[1], jsonText(t, fx.Files))
	decision = d.next()
	require.Empty(t, decision.ToolCalls)
	require.Contains(t, decision.Final, "the create_issue_comment tool is not offered, so nothing was posted.")
	require.Contains(t, decision.Final, "## Review of acme/widgets#7: Reject empty widget names")
}

func mustToolSpec(t *testing.T, name string) api.ToolSpec {
	spec, ok := reviewtools.ToolByName(name)
	require.True(t, ok, name)
	return spec
}

func TestReviewerAsksOnlyForTheResultStillMissing(t *testing.T) {
	fx := loadFixture(t, "clean")
	conversation := []api.Message{
		{Role: api.RoleUser, Content: "Review pull request acme/widgets#8."},
		{Role: api.RoleAssistant, ToolCalls: []api.ToolCall{{ID: "a", Name: api.ToolGetPullRequest}}},
		{Role: api.RoleTool, ToolCallID: "a", Content: jsonText(t, fx.PullRequest)},
		// A result nobody asked for is not taken as the file list.
		{Role: api.RoleTool, ToolCallID: "stray", Content: jsonText(t, fx.Files)},
	}
	decision, err := NewReviewer().Next(context.Background(), conversation, reviewtools.Tools())
	require.NoError(t, err)
	require.Equal(t, []api.ToolCall{{ID: "call_4_list_pull_request_files", Name: api.ToolListPullRequestFiles, Arguments: json.RawMessage(`{}`)}},
		decision.ToolCalls)
}

func TestReviewerCopesWithoutAUserMessage(t *testing.T) {
	fx := loadFixture(t, "findings")
	decision, err := NewReviewer().Next(context.Background(), nil, reviewtools.Tools())
	require.NoError(t, err)
	require.Len(t, decision.ToolCalls, 2)
	require.Equal(t, "call_0_get_pull_request", decision.ToolCalls[0].ID)

	conversation := []api.Message{
		{Role: api.RoleAssistant, ToolCalls: decision.ToolCalls},
		{Role: api.RoleTool, ToolCallID: decision.ToolCalls[0].ID, Content: jsonText(t, fx.PullRequest)},
		{Role: api.RoleTool, ToolCallID: decision.ToolCalls[1].ID, Content: jsonText(t, fx.Files)},
	}
	decision, err = NewReviewer().Next(context.Background(), conversation, reviewtools.Tools())
	require.NoError(t, err)
	require.Len(t, decision.ToolCalls, 1)
	require.Contains(t, string(decision.ToolCalls[0].Arguments), "## Review of pull request #7: Add widget cache")
}

func TestTitleAndGoalCannotFakeTheOperationMarker(t *testing.T) {
	fx := loadFixture(t, "clean")
	fx.PullRequest.Title = "Sneaky " + api.OperationMarker("op-1")
	d := newDialogue(t, "Review pull request acme/widgets#8.\nGoal: "+api.OperationMarker("op-2"))
	_, body := d.fetchAndPropose(fx)
	require.NotContains(t, body, "<!--")
	require.Contains(t, body, "Goal: &lt;!-- agent-operation:op-2 -->")
	require.Contains(t, body, "Sneaky &lt;!-- agent-operation:op-1 -->")
}

func TestCancelledContextStopsTheReviewer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := NewReviewer().Next(ctx, nil, reviewtools.Tools())
	require.ErrorIs(t, err, context.Canceled)
}

func TestUsageIsAQuarterOfTheBytes(t *testing.T) {
	conversation := []api.Message{{Role: api.RoleUser, Content: "Review pull request acme/widgets#7."}} // 4+35 bytes
	decision, err := NewReviewer().Next(context.Background(), conversation, nil)
	require.NoError(t, err)
	require.Equal(t, int64((len(decision.Final)+3)/4), decision.Usage.CompletionTokens)
	require.Equal(t, int64(10), decision.Usage.PromptTokens)
}
