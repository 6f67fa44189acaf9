// Package activities holds everything an agent run does outside the workflow:
// model calls and the GitHub tools. The workflow package imports this one for
// the activity methods; this package never imports the workflow package.
//
// The activities' inputs, outputs and error types are recorded in run
// histories, so they live in package api; the aliases below are the same
// types, kept so that this package's code and tests read unqualified.
package activities

import (
	"context"

	"github.com/agentrun/agentrun/api"
)

// Tool names; see package api.
const (
	ToolGetPullRequest       = api.ToolGetPullRequest
	ToolListPullRequestFiles = api.ToolListPullRequestFiles
	ToolCreateIssueComment   = api.ToolCreateIssueComment
	ToolCheckRepoPermission  = api.ToolCheckRepoPermission
)

// Application error types the workflow branches on; see package api.
const (
	ErrTypeGitHubRejected       = api.ErrTypeGitHubRejected
	ErrTypeRateLimited          = api.ErrTypeRateLimited
	ErrTypeModelRejected        = api.ErrTypeModelRejected
	ErrTypeBadToolCall          = api.ErrTypeBadToolCall
	ErrTypeTargetNotAllowed     = api.ErrTypeTargetNotAllowed
	ErrTypeConversationMismatch = api.ErrTypeConversationMismatch
)

// Conversation roles; see package api.
const (
	RoleSystem    = api.RoleSystem
	RoleUser      = api.RoleUser
	RoleAssistant = api.RoleAssistant
	RoleTool      = api.RoleTool
)

// Reconciliation outcomes; see package api.
const (
	ReconcileFound      = api.ReconcileFound
	ReconcileNotCreated = api.ReconcileNotCreated
	ReconcileCannotTell = api.ReconcileCannotTell
)

// MaxIgnoredComments is api.MaxIgnoredComments.
const MaxIgnoredComments = api.MaxIgnoredComments

// The activities' wire types; see package api.
type (
	RateLimitDetails    = api.RateLimitDetails
	Role                = api.Role
	Message             = api.Message
	ToolCall            = api.ToolCall
	ToolSpec            = api.ToolSpec
	Usage               = api.Usage
	Decision            = api.ModelDecision
	Target              = api.Target
	ModelInput          = api.ModelInput
	ConversationRef     = api.ConversationRef
	PullRequest         = api.PullRequest
	PullRequestFile     = api.PullRequestFile
	CreateCommentInput  = api.CreateCommentInput
	CommentResult       = api.CommentResult
	FindCommentInput    = api.FindCommentInput
	IgnoredComment      = api.IgnoredComment
	FindCommentResult   = api.FindCommentResult
	RepoPermissionInput = api.RepoPermissionInput
	RepoPermission      = api.RepoPermission
)

// Model chooses the agent's next move from the conversation so far.
type Model interface {
	Next(ctx context.Context, conversation []Message, tools []ToolSpec) (Decision, error)
}

// OperationMarker is api.OperationMarker.
func OperationMarker(operationKey string) string { return api.OperationMarker(operationKey) }

// CanApprove is api.CanApprove.
func CanApprove(permission string) bool { return api.CanApprove(permission) }

// CanonicalConversation is api.CanonicalConversation.
func CanonicalConversation(messages []Message) ([]byte, error) {
	return api.CanonicalConversation(messages)
}

// ConversationDigest is api.ConversationDigest.
func ConversationDigest(canonical []byte) string { return api.ConversationDigest(canonical) }
