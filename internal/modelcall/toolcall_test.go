package modelcall

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

var target = api.Target{Owner: "acme", Repo: "widgets", PullNumber: 1}

func call(name, args string) api.ToolCall {
	return api.ToolCall{ID: "c1", Name: name, Arguments: json.RawMessage(args)}
}

func TestAToolCallIsReadOrRefusedWithWhatTheModelIsTold(t *testing.T) {
	cases := []struct {
		name, tool, args, refusal string
	}{
		{"unknown tool", "delete_repo", `{}`, `unknown tool "delete_repo"`},
		{"no arguments", api.ToolGetPullRequest, ``, ""},
		{"another pull request", api.ToolGetPullRequest, `{"pullNumber":2}`, "refused: get_pull_request may only act on acme/widgets#1"},
		{"a body on a read", api.ToolListPullRequestFiles, `{"body":"x"}`, "invalid arguments for list_pull_request_files: it takes no body"},
		{"a comment without a body", api.ToolCreateIssueComment, `{}`, "invalid arguments for create_issue_comment: body is required"},
		{"arguments as a JSON string", api.ToolCreateIssueComment, `"{\"body\":\"hi\",\"repo\":\"acme/widgets\"}"`, ""},
		{"a string that is not JSON", api.ToolCreateIssueComment, `"body: hi"`, `invalid arguments for create_issue_comment: not valid JSON: "body: hi"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			spec, _, refusal := CheckToolCall(call(c.tool, c.args), target)

			require.Equal(t, c.refusal, refusal)
			if c.refusal == "" {
				require.Equal(t, c.tool, spec.Name)
			}
		})
	}
}

func TestAnApprovedCommentsArgumentsCarryItsBody(t *testing.T) {
	spec, args, refusal := CheckToolCall(call(api.ToolCreateIssueComment, `{"body":"LGTM","owner":"acme"}`), target)

	require.Empty(t, refusal)
	require.True(t, spec.SideEffect, "a comment is gated")
	require.Equal(t, ToolArgs{Body: "LGTM", Owner: "acme"}, args)
}
