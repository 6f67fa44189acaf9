package activities

import (
	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
)

// Aliases of package api's names, kept only because code outside this
// package (workflows, the worker's wiring, tests and benchmarks) still
// refers to them as activities.X. They go when their callers use package api.
// Code in this package uses api.X.

const (
	ToolGetPullRequest       = api.ToolGetPullRequest
	ToolListPullRequestFiles = api.ToolListPullRequestFiles
	ToolCreateIssueComment   = api.ToolCreateIssueComment
	ToolCheckRepoPermission  = api.ToolCheckRepoPermission

	ErrTypeGitHubRejected = api.ErrTypeGitHubRejected
	ErrTypeRateLimited    = api.ErrTypeRateLimited
	ErrTypeModelRejected  = api.ErrTypeModelRejected
	ErrTypeBadToolCall    = api.ErrTypeBadToolCall

	RoleSystem    = api.RoleSystem
	RoleUser      = api.RoleUser
	RoleAssistant = api.RoleAssistant
	RoleTool      = api.RoleTool

	ReconcileFound      = api.ReconcileFound
	ReconcileNotCreated = api.ReconcileNotCreated
	ReconcileCannotTell = api.ReconcileCannotTell
)

type (
	RateLimitDetails    = api.RateLimitDetails
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

// OperationMarker is api.OperationMarker.
func OperationMarker(operationKey string) string { return api.OperationMarker(operationKey) }

// CanApprove is api.CanApprove.
func CanApprove(permission string) bool { return api.CanApprove(permission) }

// CanonicalConversation is api.CanonicalConversation.
func CanonicalConversation(messages []api.Message) ([]byte, error) {
	return api.CanonicalConversation(messages)
}

// ConversationDigest is api.ConversationDigest.
func ConversationDigest(canonical []byte) string { return api.ConversationDigest(canonical) }

// ToolSpecs is api.ToolSpecs.
func ToolSpecs() []api.ToolSpec { return api.ToolSpecs() }

// ToolSpecByName is api.ToolSpecByName.
func ToolSpecByName(name string) (api.ToolSpec, bool) { return api.ToolSpecByName(name) }

// CarriesOperationMarker is github.CarriesOperationMarker.
func CarriesOperationMarker(body string) bool { return ghapi.CarriesOperationMarker(body) }
