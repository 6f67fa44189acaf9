// Package modelcall is what the workflow gives a model call and how it reads
// the answer: the opening conversation, the tools offered, the call's input
// (the conversation inline or by reference), and the check of each tool call
// the model asks for. Only the workflow uses it; the names and types it fills
// in (api.ToolSpec, api.ModelInput) are the contract.
package modelcall

import (
	"encoding/json"

	"github.com/agentrun/agentrun/api"
)

// Tools lists every tool the agent may be offered, in a fixed order.
// The target repository and pull request are pinned by the run, so no tool
// takes them as arguments.
func Tools() []api.ToolSpec {
	return []api.ToolSpec{
		{
			Name:        api.ToolGetPullRequest,
			Description: "Read the pull request under review: title, body, author, branches and size.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		{
			Name:        api.ToolListPullRequestFiles,
			Description: "List the files the pull request changes, with their patches (a large patch is truncated; past a total budget, patches are omitted).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		{
			Name:        api.ToolCreateIssueComment,
			Description: "Post a review comment on the pull request. A person must approve the exact body first.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","minLength":1,"maxLength":65000}},"required":["body"],"additionalProperties":false}`),
			SideEffect:  true,
		},
	}
}

// ToolByName finds a tool by name.
func ToolByName(name string) (api.ToolSpec, bool) {
	for _, t := range Tools() {
		if t.Name == name {
			return t, true
		}
	}
	return api.ToolSpec{}, false
}

// ToolNames names the tools a model call offers, for its step record.
func ToolNames(tools []api.ToolSpec) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}
