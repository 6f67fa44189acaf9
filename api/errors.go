package api

// Application error types returned by the activities. The workflow branches
// on them, and they are recorded in history as the failures' types.
const (
	// ErrTypeGitHubRejected: GitHub answered with a 4xx that proves nothing was
	// created (401, 404, 422, or a 403 that is not a rate limit). Never retried.
	ErrTypeGitHubRejected = "GitHubRejected"
	// ErrTypeToolRejected: any other tool's proof that nothing happened
	// (tools.Rejected).
	ErrTypeToolRejected = "ToolRejected"
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
	// ErrTypeConversationMismatch: the conversation a ConversationRef resolved
	// to is not the one the workflow named (another length or digest).
	// Retried: the run's worker may answer the query correctly on the next
	// attempt.
	ErrTypeConversationMismatch = "ConversationMismatch"
	// ErrTypeRunFailed is the type of the error a failed run ends with.
	ErrTypeRunFailed = "AgentRunFailed"
	// ErrTypeInvalidInput: input no attempt can succeed with (a comment
	// without its operationKey, a request the model provider cannot be sent).
	// Never retried.
	ErrTypeInvalidInput = "InvalidInput"
	// ErrTypeNoPermissionSource: the worker cannot ask who may approve (it
	// has no GitHub access). Never retried: the decision is refused at once,
	// saying so, rather than waiting on a check that cannot run.
	ErrTypeNoPermissionSource = "NoPermissionSource"
)

// RateLimitDetails travels as the details of an ErrTypeRateLimited error.
type RateLimitDetails struct {
	RetryAfterSeconds int64  `json:"retryAfterSeconds"`
	Kind              string `json:"kind"` // "primary" or "secondary"
}
