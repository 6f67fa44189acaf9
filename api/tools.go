package api

import "encoding/json"

// ToolSpecs lists every tool the agent may be offered, in a fixed order.
// The target repository and pull request are pinned by the run, so no tool
// takes them as arguments.
func ToolSpecs() []ToolSpec {
	return []ToolSpec{
		{
			Name:        ToolGetPullRequest,
			Description: "Read the pull request under review: title, body, author, branches and size.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		{
			Name:        ToolListPullRequestFiles,
			Description: "List the files the pull request changes, with their patches (a large patch is truncated; past a total budget, patches are omitted).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		},
		{
			Name:        ToolCreateIssueComment,
			Description: "Post a review comment on the pull request. A person must approve the exact body first.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"body":{"type":"string","minLength":1,"maxLength":65000}},"required":["body"],"additionalProperties":false}`),
			SideEffect:  true,
		},
	}
}

// ToolSpecByName finds a tool by name.
func ToolSpecByName(name string) (ToolSpec, bool) {
	for _, t := range ToolSpecs() {
		if t.Name == name {
			return t, true
		}
	}
	return ToolSpec{}, false
}
