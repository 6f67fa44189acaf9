package workflows

import "github.com/agentrun/agentrun/activities"

// Labels are stable product text: the UI, the CLI and tests match on them.
const (
	LabelStarting        = "Starting"
	LabelThinking        = "Deciding the next step"
	LabelReadingPR       = "Reading the pull request"
	LabelReadingFiles    = "Reading the changed files"
	LabelWaitingApproval = "Waiting for approval to post a comment"
	LabelPosting         = "Posting the comment"
	LabelReconciling     = "Checking whether the comment was already posted"
	LabelRateLimited     = "Waiting for GitHub's rate limit to reset"
	LabelBackoff         = "Waiting before trying the comment again"
	LabelCannotTell      = "Cannot tell whether the comment was posted; waiting for an operator"
	LabelRejected        = "The comment was rejected"
	LabelExpired         = "The approval expired; nothing was posted"
	LabelDone            = "Done"
	LabelFailed          = "Failed"
	LabelCancelled       = "Cancelled"
	LabelContinuing      = "Continuing in a fresh history"
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
