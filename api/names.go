package api

import (
	"time"

	"go.temporal.io/sdk/temporal"
)

const (
	// DefaultTaskQueue is the task queue workers poll unless AGENT_TASK_QUEUE says otherwise.
	DefaultTaskQueue = "agent-runs"
	// WorkflowName is the registered name of AgentRun.
	WorkflowName = "AgentRun"
)

// Signals a run accepts.
const (
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
	// SignalCancel carries a CancelSignal: a person asks the run to stop
	// without leaving an action it started in doubt.
	SignalCancel = "cancel"
)

// Queries a run answers.
const (
	// QueryRun returns a RunSnapshot.
	QueryRun = "run"
	// QueryEvents takes sinceSequence (int64) and returns the []Event after it, in order.
	QueryEvents = "events"
	// QueryConversation takes a length (int; 0 or none means all) and an
	// optional from (int; none means 0) and returns the run's []Message from
	// from up to length. A run on older code ignores from and answers the
	// first length messages. The ModelNext activity resolves a
	// ConversationRef through it, so that a long conversation is not copied
	// into history on every model call. It shows nothing the conversation
	// does not hold: the prompts, the pull request's text as the tools read
	// it, and the model's answers; never a credential.
	QueryConversation = "conversation"
	// QuerySteps takes a StepPage and returns a StepsPage: the older steps a
	// RunSnapshot leaves out (it carries only the newest SnapshotSteps).
	QuerySteps = "steps"
)

// Search attributes, upserted whenever the run's status changes. Register them
// on the server (the dev server: --search-attribute AgentRunStatus=Keyword
// --search-attribute ConversationId=Keyword
// --search-attribute AgentRunActionIds=KeywordList
// --search-attribute AgentRunAgent=Keyword).
var (
	// SearchAttrStatus holds the RunStatus; AgentRunStatus="waiting_for_user" is the approval inbox.
	SearchAttrStatus = temporal.NewSearchAttributeKeyKeyword("AgentRunStatus")
	// SearchAttrConversation holds RunInput.ConversationID.
	SearchAttrConversation = temporal.NewSearchAttributeKeyKeyword("ConversationId")
	// SearchAttrActionIDs lists the IDs of every PendingAction the run has
	// requested, so that a decision naming only an action ID (a GitHub
	// comment command) finds its run in one visibility query.
	SearchAttrActionIDs = temporal.NewSearchAttributeKeyKeywordList("AgentRunActionIds")
	// SearchAttrAgent holds RunInput.Agent. The run client sets it when it
	// starts a run, so that runs are listed by agent; runs started before it
	// existed have none.
	SearchAttrAgent = temporal.NewSearchAttributeKeyKeyword("AgentRunAgent")
)

// MemoRequestHash is the memo field of a run started through an
// idempotency key: the digest of the request that started it, so that the
// key reused for another request is told apart from a repeat.
const MemoRequestHash = "AgentRunRequestHash"

// MemoInbox is the memo field a run sets each time it starts to wait for
// approval: an InboxMemo, so that the inbox lists waiting runs from
// visibility alone instead of querying each one.
const MemoInbox = "AgentRunInbox"

// MemoStanding is the memo field a run sets once it ends: its
// StandingOfRun, so that a listing (`starter list`) shows how each ended
// run stands from visibility alone instead of querying each one.
const MemoStanding = "AgentRunStanding"

// MemoPosted is the memo field a run sets once it ends, beside
// MemoStanding: the comments it posted (PostedComments of its outcome), so
// that while no worker answers, its last known state still names the
// review it posted, for the review of the pull request's next head to
// mark superseded.
const MemoPosted = "AgentRunPosted"

// InboxMemo is what the inbox shows of a waiting run: its actions still
// waiting when it began to wait, and the run's fields beside them.
type InboxMemo struct {
	Run     Run             `json:"run"`
	Label   string          `json:"label"`
	Actions []PendingAction `json:"actions"`
}

// Activity names, as the worker registers them: the worker registers the
// methods of activities.Activities, and Temporal names each activity after
// its method. They are recorded in every run's history, so a renamed method
// breaks open runs; activities' tests hold the methods to these names.
const (
	// ActivityModelNext takes a ModelInput and returns a ModelDecision.
	ActivityModelNext = "ModelNext"
	// ActivityCheckRepoPermission takes a RepoPermissionInput and returns a RepoPermission.
	ActivityCheckRepoPermission = "CheckRepoPermission"
	// ActivityExecuteTool takes a ToolInput and returns a ToolOutput: any
	// registered tool, by the name the input carries.
	ActivityExecuteTool = "ExecuteTool"
	// ActivityReconcileTool takes a ToolInput and returns a ToolReconciliation.
	ActivityReconcileTool = "ReconcileTool"
)

// Heartbeat timing the activities keep and the workflow's heartbeat
// timeouts count on: a worker that dies inside a call is noticed within a
// few intervals, not the call's whole timeout.
const (
	// ModelHeartbeatInterval is how often ModelNext reports that it is
	// alive; a model call can take minutes.
	ModelHeartbeatInterval = 5 * time.Second
	// ActionHeartbeatInterval is how often an action's attempt or look
	// (ExecuteTool, ReconcileTool) heartbeats while its request is in flight.
	ActionHeartbeatInterval = 250 * time.Millisecond
	// ActionHeartbeatTimeout is how soon a worker that died inside an
	// action's attempt or look is noticed. The worker sends the latest
	// heartbeat at most every min(0.8 × this timeout, its 500 ms throttle),
	// so the server must get one of them in time. At 1 s (two sends a
	// window, 500 ms of slack) a worker whose cores were all busy timed out
	// 80 of 500 of its own live looks; at 2 s (four sends, 1.5 s of slack)
	// none of 500 (internal/bench heartbeat_test.go, docs/operations.md).
	// Recovery after a SIGKILL waits this long before its look.
	ActionHeartbeatTimeout = 8 * ActionHeartbeatInterval
)

// Tool names, as the model sees them and as steps record them.
const (
	// ToolGetPullRequest reads the run's pull request.
	ToolGetPullRequest = "get_pull_request"
	// ToolListPullRequestFiles lists the files the pull request changes.
	ToolListPullRequestFiles = "list_pull_request_files"
	// ToolCreateIssueComment posts a comment; it is gated by approval.
	ToolCreateIssueComment = "create_issue_comment"
	// ToolCreatePullRequestReview posts a review with inline comments.
	ToolCreatePullRequestReview = "create_pull_request_review"
	// ToolAddLabels labels the pull request.
	ToolAddLabels = "add_labels"
	// ToolCreateIssue files an issue in the pull request's repository.
	ToolCreateIssue = "create_issue"
	// ToolCheckRepoPermission is the run's own check of who may decide on a
	// run without approvers; the model never sees it.
	ToolCheckRepoPermission = "check_repo_permission"
)

// The metrics a run counts at its transitions (workflows/runmetrics.go). The
// handler carries the SDK's namespace, task_queue and workflow_type tags; it appends
// _total to counters and _seconds to timers (internal/telemetry).
const (
	MetricRunsStarted        = "agentrun_runs_started"
	MetricRunsEnded          = "agentrun_runs_ended"
	MetricApprovalsRequested = "agentrun_approvals_requested"
	MetricApprovalsDecided   = "agentrun_approvals_decided"
	MetricApprovalsExpired   = "agentrun_approvals_expired"
	MetricApprovalLatency    = "agentrun_approval_decision_latency"
	MetricReconciliations    = "agentrun_reconciliations"
)
