// Package workflows holds the AgentRun workflow: the durable model -> tools
// loop, its approval gate, its reconciliation of unknown outcomes, and the
// queries that show what a run is doing.
//
// This file is the wire contract: every name another process uses to talk to
// a run (task queue, signals, queries, search attributes) and the types those
// messages carry.
package workflows

import (
	"encoding/json"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/activities"
)

const (
	// DefaultTaskQueue is the task queue workers poll unless AGENT_TASK_QUEUE says otherwise.
	DefaultTaskQueue = "agent-runs"
	// WorkflowName is the registered name of AgentRun.
	WorkflowName = "AgentRun"

	// SignalApproval carries an ApprovalSignal: a person's decision on the pending action.
	SignalApproval = "approval"
	// SignalResolve carries a ResolveSignal: an operator's decision on a step
	// whose outcome reconciliation could not tell.
	SignalResolve = "resolve"
	// SignalRefusal carries a RefusalSignal: a decision the approval server
	// refused before it could reach the run. The run records it as a
	// signal_ignored event and changes nothing else, so that the refusal
	// outlives the approval server's memory and shows on the run's page.
	SignalRefusal = "refusal"

	// QueryRun returns a RunSnapshot.
	QueryRun = "run"
	// QueryEvents takes sinceSequence (int64) and returns the []Event after it, in order.
	QueryEvents = "events"
	// QueryConversation takes a length (int; 0 or none means all) and returns
	// the run's first length []activities.Message. The ModelNext activity
	// resolves an activities.ConversationRef through it, so that a long
	// conversation is not copied into history on every model call. It shows
	// nothing the conversation does not hold: the prompts, the pull request's
	// text as the tools read it, and the model's answers; never a credential.
	QueryConversation = "conversation"
)

// Search attributes, upserted whenever the run's status changes. Register them
// on the server (the dev server: --search-attribute AgentRunStatus=Keyword
// --search-attribute ConversationId=Keyword
// --search-attribute AgentRunActionIds=KeywordList).
var (
	// SearchAttrStatus holds the RunStatus; AgentRunStatus="waiting_for_user" is the approval inbox.
	SearchAttrStatus = temporal.NewSearchAttributeKeyKeyword("AgentRunStatus")
	// SearchAttrConversation holds RunInput.ConversationID.
	SearchAttrConversation = temporal.NewSearchAttributeKeyKeyword("ConversationId")
	// SearchAttrActionIDs lists the IDs of every PendingAction the run has
	// requested, so that a decision naming only an action ID (a GitHub
	// comment command) finds its run in one visibility query.
	SearchAttrActionIDs = temporal.NewSearchAttributeKeyKeywordList("AgentRunActionIds")
)

// Defaults applied to a RunInput that leaves them zero.
const (
	DefaultApprovalTimeout  = 24 * time.Hour
	DefaultMaxSteps         = 20
	DefaultHistoryThreshold = 10000
	// DefaultInlineConversationBytes is the largest conversation (in bytes of
	// its canonical JSON) a model call carries inline; a larger one travels as
	// an activities.ConversationRef, which keeps history bytes per model call flat.
	DefaultInlineConversationBytes = 16 << 10
)

// RunStatus is the status of an AgentRun.
type RunStatus string

const (
	RunRunning        RunStatus = "running"
	RunWaitingForUser RunStatus = "waiting_for_user"
	RunReconciling    RunStatus = "reconciling"
	RunCompleted      RunStatus = "completed"
	RunFailed         RunStatus = "failed"
	RunCancelled      RunStatus = "cancelled"
)

// StepType is the kind of an AgentStep.
type StepType string

const (
	StepModelCall     StepType = "model_call"
	StepToolCall      StepType = "tool_call"
	StepHumanApproval StepType = "human_approval"
	// StepPermissionCheck is the check of a decider's GitHub permission on
	// the repository, for a run that names no approvers. It succeeds when
	// GitHub answered, whatever the permission; its safeOutput says which.
	StepPermissionCheck StepType = "permission_check"
)

// StepStatus is the status of an AgentStep.
type StepStatus string

const (
	StepPending            StepStatus = "pending"
	StepWaitingForApproval StepStatus = "waiting_for_approval"
	StepRunning            StepStatus = "running"
	StepOutcomeUnknown     StepStatus = "outcome_unknown"
	StepSucceeded          StepStatus = "succeeded"
	StepFailed             StepStatus = "failed"
	StepRejected           StepStatus = "rejected"
	StepExpired            StepStatus = "expired"
	StepSkipped            StepStatus = "skipped"
)

// ActionState is the state of a PendingAction.
type ActionState string

const (
	ActionWaiting  ActionState = "waiting"
	ActionApproved ActionState = "approved"
	ActionRejected ActionState = "rejected"
	ActionExpired  ActionState = "expired"
)

// Decisions carried by the signals.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"

	ResolveRetry         = "retry"
	ResolveMarkSucceeded = "mark_succeeded"
	ResolveAbandon       = "abandon"
)

// RunInput starts an AgentRun. The workflow ID is the run ID.
type RunInput struct {
	Repo           string `json:"repo"` // owner/name
	PullNumber     int    `json:"pullNumber"`
	Goal           string `json:"goal,omitempty"`
	UserID         string `json:"userId"`
	ConversationID string `json:"conversationId,omitempty"`
	// Approvers are the GitHub logins allowed to decide. Empty means anyone
	// with write permission on the repository (admin, maintain or write),
	// which the run asks GitHub itself for each decision (a permission_check
	// step; see policy.go). Runs from before policyChangeID took any approver
	// the approval layer had authenticated.
	Approvers []string `json:"approvers,omitempty"`
	// ApprovalTimeout travels as a duration string ("24h0m0s"); a number is
	// read as nanoseconds. So does ToolTimeout (duration.go).
	ApprovalTimeout time.Duration `json:"approvalTimeout,omitempty"`
	MaxSteps        int           `json:"maxSteps,omitempty"`
	// HistoryThreshold is the history length past which the run continues as new.
	HistoryThreshold int `json:"historyThreshold,omitempty"`
	// ToolTimeout bounds one attempt of a GitHub tool (start-to-close).
	ToolTimeout time.Duration `json:"toolTimeout,omitempty"`
	// InlineConversationBytes is the size up to which a model call carries the
	// conversation itself rather than a reference to it. Zero means
	// DefaultInlineConversationBytes; a negative value means always inline,
	// for workers without a conversation store (the testsuite's).
	InlineConversationBytes int `json:"inlineConversationBytes,omitempty"`
	// Checkpoint is empty on a new run and set when the run continues as new.
	Checkpoint *Checkpoint `json:"checkpoint,omitempty"`
}

// RunResult is what AgentRun returns when it completes.
type RunResult struct {
	Status RunStatus `json:"status"`
	Answer string    `json:"answer,omitempty"`
	Error  string    `json:"error,omitempty"`
	// Outcome is what the run did, as the run query's snapshot shows it.
	Outcome *Outcome `json:"outcome,omitempty"`
}

// ApprovalSignal is the payload of SignalApproval.
type ApprovalSignal struct {
	ActionID  string `json:"actionId"`
	Decision  string `json:"decision"` // DecisionApprove or DecisionReject
	Approver  string `json:"approver"`
	Reason    string `json:"reason,omitempty"`
	RequestID string `json:"requestId,omitempty"`
	// Channel says how the decision arrived (signed API, GitHub comment, web
	// page, CLI). A requestId is remembered per channel and approver, so one
	// person cannot burn another's requestId.
	Channel string `json:"channel,omitempty"`
}

// ResolveSignal is the payload of SignalResolve.
type ResolveSignal struct {
	StepID             string `json:"stepId"`
	Decision           string `json:"decision"` // ResolveRetry, ResolveMarkSucceeded or ResolveAbandon
	ExternalResourceID string `json:"externalResourceId,omitempty"`
	By                 string `json:"by"`
}

// RefusalSignal is the payload of SignalRefusal. Only the approval server
// sends it, and only for a decision it authenticated; the run bounds Who and
// Reason before recording them.
type RefusalSignal struct {
	ActionID string `json:"actionId"`
	Who      string `json:"who"`
	Channel  string `json:"channel"` // how the decision arrived: signed API, GitHub comment, web page
	Reason   string `json:"reason"`
}

// Run is the AgentRun record the run query shows (the function AgentRun is the workflow).
type Run struct {
	ID                    string    `json:"id"`
	ConversationID        string    `json:"conversationId"`
	UserID                string    `json:"userId"`
	Repo                  string    `json:"repo"`
	PullNumber            int       `json:"pullNumber"`
	Approvers             []string  `json:"approvers,omitempty"`
	Status                RunStatus `json:"status"`
	LastCommittedSequence int64     `json:"lastCommittedSequence"`
	Version               int64     `json:"version"`
	CreatedAt             time.Time `json:"createdAt"`
	UpdatedAt             time.Time `json:"updatedAt"`
	Result                string    `json:"result,omitempty"`
	Error                 string    `json:"error,omitempty"`
	// Usage totals the tokens of every model call.
	Usage activities.Usage `json:"usage"`
	// Generation counts how many times the run continued as new.
	Generation int `json:"generation"`
}

// AgentStep is one model call, tool call or approval of a run.
type AgentStep struct {
	ID                 string            `json:"id"`
	RunID              string            `json:"runId"`
	Sequence           int               `json:"sequence"`
	Type               StepType          `json:"type"`
	Status             StepStatus        `json:"status"`
	CallID             string            `json:"callId,omitempty"`
	ToolName           string            `json:"toolName,omitempty"`
	SafeInput          json.RawMessage   `json:"safeInput,omitempty"`
	SafeOutput         json.RawMessage   `json:"safeOutput,omitempty"`
	OperationKey       string            `json:"operationKey,omitempty"`
	ExternalResourceID string            `json:"externalResourceId,omitempty"`
	Attempt            int               `json:"attempt"`
	Error              string            `json:"error,omitempty"`
	StartedAt          *time.Time        `json:"startedAt,omitempty"`
	CompletedAt        *time.Time        `json:"completedAt,omitempty"`
	DurationMs         int64             `json:"durationMs"`
	Usage              *activities.Usage `json:"usage,omitempty"`
}

// PendingAction is a gated action waiting for (or decided by) a person.
type PendingAction struct {
	ID        string          `json:"id"`
	StepID    string          `json:"stepId"`
	ToolName  string          `json:"toolName"`
	SafeInput json.RawMessage `json:"safeInput"`
	// Preview is the exact comment body that will be posted.
	Preview string `json:"preview"`
	// Target is where it will be posted: owner/name#number.
	Target      string      `json:"target"`
	ArgsHash    string      `json:"argsHash"` // sha256 of the canonical input
	State       ActionState `json:"state"`
	RequestedBy string      `json:"requestedBy"`
	Approvers   []string    `json:"approvers,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
	ExpiresAt   time.Time   `json:"expiresAt"`
	DecidedBy   string      `json:"decidedBy,omitempty"`
	Reason      string      `json:"reason,omitempty"`
	DecidedAt   *time.Time  `json:"decidedAt,omitempty"`
	// RequestKeys are the RequestKey of every decision already applied or
	// refused, so that a repeated request is recognised.
	RequestKeys []string `json:"requestKeys,omitempty"`
}

// Event types.
const (
	EventRunStatus      = "run_status"
	EventStepStatus     = "step_status"
	EventActionState    = "action_state"
	EventSignalIgnored  = "signal_ignored"
	EventContinuedAsNew = "continued_as_new"
	// EventLookalikeIgnored records a comment that carries the step's
	// operation marker but is not the run's own (another author, or not
	// the approved body): it proved nothing and was left alone.
	EventLookalikeIgnored = "lookalike_ignored"
)

// Event is one entry of a run's ordered event stream.
type Event struct {
	Sequence int64     `json:"sequence"`
	At       time.Time `json:"at"`
	Type     string    `json:"type"`
	StepID   string    `json:"stepId,omitempty"`
	Status   string    `json:"status,omitempty"`
	Label    string    `json:"label"`
	// Detail says why, for ignored signals and failures.
	Detail string `json:"detail,omitempty"`
}

// Checkpoint is where the loop resumes, and what continue-as-new carries.
type Checkpoint struct {
	Run          Run                  `json:"run"`
	Conversation []activities.Message `json:"conversation"`
	Steps        []AgentStep          `json:"steps"`
	// Events holds the most recent events; older ones are dropped to keep the
	// checkpoint bounded. EventSequence continues unbroken.
	Events        []Event `json:"events"`
	EventSequence int64   `json:"eventSequence"`
	StepSequence  int     `json:"stepSequence"`
	// Actions holds every gated action. A pending approval travels as the
	// last one, still waiting; restore resumes its wait and its timer.
	Actions []PendingAction `json:"actions,omitempty"`
	// Label is the label at the moment of the checkpoint.
	Label string `json:"label"`
	// OpenToolCalls are the tool calls of the last model decision that have
	// not been run yet; the loop runs them before calling the model again.
	OpenToolCalls []activities.ToolCall `json:"openToolCalls,omitempty"`
	// AwaitingResolve is the step an operator must resolve, if any.
	AwaitingResolve string `json:"awaitingResolve,omitempty"`
	// BadToolCalls counts the model's invalid tool calls in a row.
	BadToolCalls int `json:"badToolCalls,omitempty"`
	// QueuedDecisions are decisions still waiting for their decider's
	// permission check, oldest first; the next run checks them in order.
	QueuedDecisions []ApprovalSignal `json:"queuedDecisions,omitempty"`
}

// CheckpointView is the part of the Checkpoint the run query shows.
type CheckpointView struct {
	Generation         int   `json:"generation"`
	StepSequence       int   `json:"stepSequence"`
	EventSequence      int64 `json:"eventSequence"`
	ConversationLength int   `json:"conversationLength"`
	HistoryLength      int   `json:"historyLength"`
	HistoryThreshold   int   `json:"historyThreshold"`
}

// RunSnapshot is what QueryRun returns.
type RunSnapshot struct {
	Run   Run         `json:"run"`
	Steps []AgentStep `json:"steps"`
	// PendingAction is the run's most recent gated action, in whatever state
	// it is now; nil until the model proposes one.
	PendingAction *PendingAction `json:"pendingAction,omitempty"`
	// Actions lists every gated action of the run, oldest first, so that a
	// decision on an older action can be answered "already decided".
	Actions []PendingAction `json:"actions"`
	Label   string          `json:"label"`
	// AwaitingResolve is the ID of the step an operator must resolve (the
	// run could not tell whether its action happened), or empty. Clients read
	// this, or ResolveApplies, rather than the label.
	AwaitingResolve string         `json:"awaitingResolve,omitempty"`
	Checkpoint      CheckpointView `json:"checkpoint"`
	// Outcome is what the run has done so far; final once the run ends.
	Outcome Outcome `json:"outcome"`
}

// Outcome is what a run did, for people: what it posted, what people
// rejected or let expire, and what failed. It is derived from the steps and
// actions, so every run has one, however old.
type Outcome struct {
	// Summary is one line, e.g. "Posted 1 comment on acme/widgets#1".
	Summary  string            `json:"summary"`
	Posted   []PostedOutcome   `json:"posted,omitempty"`
	Declined []DeclinedOutcome `json:"declined,omitempty"`
	Failed   []FailedOutcome   `json:"failed,omitempty"`
}

// PostedOutcome is a comment the run posted (or found already posted).
type PostedOutcome struct {
	StepID   string `json:"stepId"`
	ActionID string `json:"actionId,omitempty"`
	Target   string `json:"target"` // owner/name#number
	// CommentID and URL are GitHub's; URL is empty when an operator marked
	// the step succeeded without one.
	CommentID  int64  `json:"commentId,omitempty"`
	URL        string `json:"url,omitempty"`
	ApprovedBy string `json:"approvedBy,omitempty"`
}

// DeclinedOutcome is a gated action that was not taken: rejected by a
// person, or expired (also when the run was cancelled while it waited).
type DeclinedOutcome struct {
	StepID   string      `json:"stepId"`
	ActionID string      `json:"actionId"`
	Target   string      `json:"target"`
	State    ActionState `json:"state"` // rejected or expired
	By       string      `json:"by,omitempty"`
	Reason   string      `json:"reason,omitempty"`
}

// FailedOutcome is a step that failed, or the run itself (StepID empty).
type FailedOutcome struct {
	StepID string `json:"stepId,omitempty"`
	// What names it: a tool name, "model_call", or "run".
	What  string `json:"what"`
	Error string `json:"error"`
}
