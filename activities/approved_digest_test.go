package activities_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// commentByDigest is a create_issue_comment call as a run on the engine
// batch sends it: the approved body named only by its digest.
func commentByDigest(body, approved string) api.ToolInput {
	args, _ := json.Marshal(map[string]string{"body": body})
	return api.NewToolInput(api.ToolCreateIssueComment, args, demoPR, "run-1:5", approved)
}

func TestAnActionNamedByItsApprovedDigestPostsExactlyTheApprovedText(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	in := commentByDigest("Looks good, one TODO left.", "Looks good, one TODO left.")
	require.Empty(t, in.Approved, "the text travels once, in Args")

	out, err := acts.ExecuteTool(context.Background(), in)

	require.NoError(t, err)
	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.True(t, strings.HasPrefix(comments[0].Body, "Looks good, one TODO left."), comments[0].Body)
	require.Contains(t, comments[0].Body, api.OperationMarker("run-1:5"))
	require.Equal(t, out.ExternalID, json.Number(out.ExternalID).String())
	require.NotEmpty(t, out.Content)
}

func TestADigestOfAnotherTextPostsNothingAndLooksNothingUp(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	// The body the model proposed is not the text that was approved: a
	// worker must not post it, and must not take it as found either.
	in := commentByDigest("Looks good, merge it.", "Looks good, one TODO left.")

	_, errCreate := acts.ExecuteTool(context.Background(), in)
	_, errFind := acts.ReconcileTool(context.Background(), in)

	for _, err := range []error{errCreate, errFind} {
		appErr := standalone.ApplicationError(t, err)
		require.Equal(t, api.ErrTypeToolRejected, appErr.Type(), "proof that nothing happened")
		require.True(t, appErr.NonRetryable())
		require.Contains(t, appErr.Message(), "not the one approved")
	}
	require.Empty(t, sb.Requests())
	require.Empty(t, sb.Comments("acme", "widgets", 1))
}

func TestADigestOnAReadIsRefusedBeforeAnyRequest(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	in := api.ToolInput{Tool: api.ToolGetPullRequest, Args: json.RawMessage(`{}`), Target: demoPR, ApprovedSHA256: api.PreviewDigest("x")}

	_, err := acts.ExecuteTool(context.Background(), in)

	appErr := standalone.ApplicationError(t, err)
	require.Equal(t, api.ErrTypeInvalidInput, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Empty(t, sb.Requests())
}

// A tool's SafeOutput is left out only when the workflow, which shows
// Content redacted when SafeOutput is empty, would show the same bytes.
func TestASafeOutputIsLeftOutOnlyWhenItIsWhatTheRunWouldShowAnyway(t *testing.T) {
	fixture := ghsandbox.DefaultFixture()
	fixture.Repos[0].Pulls[0].Body = "Deploy with token ghp_" + strings.Repeat("A", 36)
	plain := fixture.Repos[0].Pulls[0]
	plain.Number, plain.Body = 2, "Nothing secret here."
	fixture.Repos[0].Pulls = append(fixture.Repos[0].Pulls, plain)
	_, acts := newSandbox(t, fixture)
	read := func(tool string, pull int) api.ToolOutput {
		t.Helper()
		out, err := acts.ExecuteTool(context.Background(), api.ToolInput{
			Tool: tool, Args: json.RawMessage(`{}`), Target: api.Target{Owner: "acme", Repo: "widgets", PullNumber: pull},
		})
		require.NoError(t, err)
		return out
	}

	same := read(api.ToolGetPullRequest, 2)
	require.Nil(t, same.SafeOutput)
	require.Contains(t, string(redact.JSON(same.Content)), "Nothing secret here.")

	// Its SafeOutput was the content redacted, which is what the run makes
	// of the content: the step still never shows the token.
	secret := read(api.ToolGetPullRequest, 1)
	require.Nil(t, secret.SafeOutput)
	require.NotContains(t, string(redact.JSON(secret.Content)), "ghp_")
	require.Contains(t, string(secret.Content), "ghp_", "the model still reads the pull request as it is")

	files := read(api.ToolListPullRequestFiles, 2)
	require.NotNil(t, files.SafeOutput, "files show without their patches")
	require.NotContains(t, string(files.SafeOutput), "@@")
}

// A body the action will not preview (blank, or carrying a marker of its
// own) cannot be the approved one: the activity refuses it before any
// request, whatever digest the input names. The tool's own refusals are
// tested in tools/ghtools.
func TestABodyTheActionWillNotPreviewIsNotTheApprovedOneAndPostsNothing(t *testing.T) {
	for _, body := range []string{" \n", "LGTM\n<!--Agent-Operation: run-9:1 -->"} {
		sb, acts := newSandbox(t, ghsandbox.DefaultFixture())

		_, err := acts.ExecuteTool(context.Background(), commentByDigest(body, body))

		appErr := standalone.ApplicationError(t, err)
		require.Equal(t, api.ErrTypeToolRejected, appErr.Type())
		require.True(t, appErr.NonRetryable())
		require.Contains(t, appErr.Message(), "the call is not the one approved")
		require.Empty(t, sb.Requests())
	}
}

// An action runs only under an operationKey: the activity refuses one
// without, naming the tool, before the tool is asked.
func TestAnActionWithoutAnOperationKeyIsRefusedBeforeAnyRequest(t *testing.T) {
	sb, acts := newSandbox(t, ghsandbox.DefaultFixture())
	args, _ := json.Marshal(map[string]string{"body": "Review"})

	_, err := acts.ExecuteTool(context.Background(), api.NewToolInput(api.ToolCreateIssueComment, args, demoPR, "", "Review"))

	appErr := standalone.ApplicationError(t, err)
	require.True(t, appErr.NonRetryable())
	require.Equal(t, api.ErrTypeInvalidInput, appErr.Type())
	require.Contains(t, appErr.Message(), "create_issue_comment: ")
	require.Contains(t, appErr.Message(), "operationKey")
	require.Empty(t, sb.Requests())
}
