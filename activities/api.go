// Package activities holds everything an agent run does outside the workflow:
// model calls and the GitHub tools. The workflow package imports this one for
// the activity methods and the conversation types; this package never imports
// the workflow package.
package activities

import (
	"context"
	"encoding/json"
)

// Tool names, as the model sees them and as steps record them.
const (
	ToolGetPullRequest       = "get_pull_request"
	ToolListPullRequestFiles = "list_pull_request_files"
	ToolCreateIssueComment   = "create_issue_comment"
)

// Application error types returned by the activities. The workflow branches on
// them; they are part of the contract between the two packages.
const (
	// ErrTypeGitHubRejected: GitHub answered with a 4xx that proves nothing was
	// created (401, 404, 422, or a 403 that is not a rate limit). Never retried.
	ErrTypeGitHubRejected = "GitHubRejected"
	// ErrTypeRateLimited: a primary or secondary rate limit. The details hold a
	// RateLimitDetails value that says how long to wait.
	ErrTypeRateLimited = "RateLimited"
	// ErrTypeModelRejected: the model provider refused the request (400, 401,
	// 404). Never retried.
	ErrTypeModelRejected = "ModelRejected"
	// ErrTypeBadToolCall: the model asked for a tool that does not exist or
	// gave arguments that do not fit its schema.
	ErrTypeBadToolCall = "BadToolCall"
	// ErrTypeTargetNotAllowed: the pull request's repository is not in the
	// worker's AGENT_ALLOWED_REPOS. Refused before any request; never retried.
	ErrTypeTargetNotAllowed = "TargetNotAllowed"
)

// RateLimitDetails travels as the details of an ErrTypeRateLimited error.
type RateLimitDetails struct {
	RetryAfterSeconds int64  `json:"retryAfterSeconds"`
	Kind              string `json:"kind"` // "primary" or "secondary"
}

// Role of a conversation message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of the conversation history: what the model sees next.
// It follows the shape of tool-calling chat APIs so that a real LLM provider
// maps onto it one to one.
type Message struct {
	Role       Role       `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	Name       string     `json:"name,omitempty"`
}

// ToolCall is one tool invocation the model asked for.
type ToolCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// ToolSpec describes a tool offered to the model.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"` // JSON schema
	// SideEffect marks a tool that changes the outside world: it is gated by
	// approval and runs under an operationKey.
	SideEffect bool `json:"sideEffect"`
}

// Usage counts the tokens of one model call.
type Usage struct {
	PromptTokens     int64 `json:"promptTokens"`
	CompletionTokens int64 `json:"completionTokens"`
}

// Decision is what the model answers: either a final answer or tool calls.
type Decision struct {
	Final     string     `json:"final,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	Usage     Usage      `json:"usage"`
	Model     string     `json:"model,omitempty"`
}

// Model chooses the agent's next move from the conversation so far.
type Model interface {
	Next(ctx context.Context, conversation []Message, tools []ToolSpec) (Decision, error)
}

// Target pins every tool to the run's own pull request.
type Target struct {
	Owner      string `json:"owner"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
}

// ModelInput is the input of the ModelNext activity. It carries the
// conversation inline, or, once that grows large, a Ref the activity resolves.
type ModelInput struct {
	Conversation []Message  `json:"conversation"`
	Tools        []ToolSpec `json:"tools"`
	// Ref, when set, stands for the conversation: Conversation is then empty.
	Ref *ConversationRef `json:"ref,omitempty"`
}

// PullRequest is the result of get_pull_request.
type PullRequest struct {
	Number       int    `json:"number"`
	Title        string `json:"title"`
	Body         string `json:"body"`
	Author       string `json:"author"`
	State        string `json:"state"`
	HeadRef      string `json:"headRef"`
	BaseRef      string `json:"baseRef"`
	HeadSHA      string `json:"headSha"`
	Additions    int    `json:"additions"`
	Deletions    int    `json:"deletions"`
	ChangedFiles int    `json:"changedFiles"`
	HTMLURL      string `json:"htmlUrl"`
}

// PullRequestFile is one entry of list_pull_request_files. Patch may be
// truncated (one huge file) or omitted (the listing's patches together were
// too large); PatchBytes and PatchSHA256 then describe the original.
type PullRequestFile struct {
	Filename       string `json:"filename"`
	Status         string `json:"status"`
	Additions      int    `json:"additions"`
	Deletions      int    `json:"deletions"`
	Patch          string `json:"patch,omitempty"`
	PatchTruncated bool   `json:"patchTruncated,omitempty"`
	PatchOmitted   bool   `json:"patchOmitted,omitempty"`
	PatchBytes     int    `json:"patchBytes,omitempty"`
	PatchSHA256    string `json:"patchSha256,omitempty"`
}

// CreateCommentInput is the input of the CreateIssueComment activity.
type CreateCommentInput struct {
	Target       Target `json:"target"`
	Body         string `json:"body"`
	OperationKey string `json:"operationKey"`
}

// CommentResult tells which comment carries an operationKey's marker.
type CommentResult struct {
	CommentID int64  `json:"commentId"`
	HTMLURL   string `json:"htmlUrl,omitempty"`
	// AlreadyExisted is true when our own comment for the key was found and
	// nothing was created.
	AlreadyExisted bool `json:"alreadyExisted"`
	// Ignored lists look-alikes: comments carrying the key's marker that do
	// not prove the operation (another author, or another body).
	Ignored []IgnoredComment `json:"ignored,omitempty"`
}

// FindCommentInput is the input of the reconcile activity.
type FindCommentInput struct {
	Target       Target `json:"target"`
	OperationKey string `json:"operationKey"`
	// Body is the approved body, without the marker: only a comment whose
	// body is exactly this plus the marker proves the operation.
	Body string `json:"body"`
}

// IgnoredComment is a comment that carries an operation's marker but does
// not prove the operation: anyone can type a marker into a comment.
type IgnoredComment struct {
	CommentID int64  `json:"commentId"`
	Author    string `json:"author"`
	Why       string `json:"why"`
}

// MaxIgnoredComments caps the look-alikes one result reports, so that a
// flood of them cannot grow an activity result without bound.
const MaxIgnoredComments = 10

// Reconciliation outcomes.
const (
	ReconcileFound      = "found"
	ReconcileNotCreated = "not_created"
	ReconcileCannotTell = "cannot_tell"
)

// FindCommentResult is the answer of the reconcile activity.
type FindCommentResult struct {
	Outcome   string `json:"outcome"` // one of the Reconcile* constants
	CommentID int64  `json:"commentId,omitempty"`
	HTMLURL   string `json:"htmlUrl,omitempty"`
	Reason    string `json:"reason,omitempty"` // why it cannot tell
	// Ignored lists look-alikes, as in CommentResult.
	Ignored []IgnoredComment `json:"ignored,omitempty"`
}

// OperationMarker is the hidden marker appended to every comment we create.
func OperationMarker(operationKey string) string {
	return "<!-- agent-operation:" + operationKey + " -->"
}
