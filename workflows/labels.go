package workflows

import (
	"github.com/agentrun/agentrun/api"
)

// toolLabel is the label of a run while it runs a tool; the labels are
// stable product text in package api.
func toolLabel(tool string) string {
	switch tool {
	case api.ToolGetPullRequest:
		return api.LabelReadingPR
	case api.ToolListPullRequestFiles:
		return api.LabelReadingFiles
	case api.ToolCreateIssueComment:
		return api.LabelPosting
	default:
		return "Running " + tool
	}
}
