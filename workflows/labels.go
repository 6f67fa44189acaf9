package workflows

import (
	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
)

// Labels are stable product text: the UI, the CLI and tests match on them.
// They live in package api; these names keep the workflow's code unqualified.
const (
	LabelStarting        = api.LabelStarting
	LabelThinking        = api.LabelThinking
	LabelReadingPR       = api.LabelReadingPR
	LabelReadingFiles    = api.LabelReadingFiles
	LabelWaitingApproval = api.LabelWaitingApproval
	LabelPosting         = api.LabelPosting
	LabelReconciling     = api.LabelReconciling
	LabelRateLimited     = api.LabelRateLimited
	LabelBackoff         = api.LabelBackoff
	LabelCannotTell      = api.LabelCannotTell
	LabelRejected        = api.LabelRejected
	LabelExpired         = api.LabelExpired
	LabelDone            = api.LabelDone
	LabelFailed          = api.LabelFailed
	LabelCancelled       = api.LabelCancelled
	LabelContinuing      = api.LabelContinuing
)

func toolLabel(tool string) string {
	switch tool {
	case activities.ToolGetPullRequest:
		return LabelReadingPR
	case activities.ToolListPullRequestFiles:
		return LabelReadingFiles
	case activities.ToolCreateIssueComment:
		return LabelPosting
	default:
		return "Running " + tool
	}
}
