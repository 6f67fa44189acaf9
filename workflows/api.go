// Package workflows holds the AgentRun workflow: the durable model -> tools
// loop, its approval gate, its reconciliation of unknown outcomes, and the
// queries that show what a run is doing.
//
// The wire contract (names, signal and query payloads, the snapshot) lives in
// package api. This file gives the workflow's code and tests its names
// unqualified: the aliases are the same types, so nothing on the wire moved.
package workflows

import "github.com/agentrun/agentrun/api"

// Names another process uses to reach a run; see package api.
const (
	DefaultTaskQueue  = api.DefaultTaskQueue
	WorkflowName      = api.WorkflowName
	SignalApproval    = api.SignalApproval
	SignalResolve     = api.SignalResolve
	SignalRefusal     = api.SignalRefusal
	QueryRun          = api.QueryRun
	QueryEvents       = api.QueryEvents
	QueryConversation = api.QueryConversation
)

// Search attributes; see package api.
var (
	SearchAttrStatus       = api.SearchAttrStatus
	SearchAttrConversation = api.SearchAttrConversation
	SearchAttrActionIDs    = api.SearchAttrActionIDs
)

// Defaults applied to a RunInput that leaves them zero; see package api.
const (
	DefaultApprovalTimeout         = api.DefaultApprovalTimeout
	DefaultMaxSteps                = api.DefaultMaxSteps
	DefaultHistoryThreshold        = api.DefaultHistoryThreshold
	DefaultInlineConversationBytes = api.DefaultInlineConversationBytes
)

// The run's types; see package api.
type (
	RunStatus       = api.RunStatus
	StepType        = api.StepType
	StepStatus      = api.StepStatus
	ActionState     = api.ActionState
	RunInput        = api.RunInput
	RunResult       = api.RunResult
	ApprovalSignal  = api.ApprovalSignal
	ResolveSignal   = api.ResolveSignal
	RefusalSignal   = api.RefusalSignal
	Run             = api.Run
	AgentStep       = api.AgentStep
	PendingAction   = api.PendingAction
	Event           = api.Event
	Checkpoint      = api.Checkpoint
	CheckpointView  = api.CheckpointView
	RunSnapshot     = api.RunSnapshot
	Outcome         = api.Outcome
	PostedOutcome   = api.PostedOutcome
	DeclinedOutcome = api.DeclinedOutcome
	FailedOutcome   = api.FailedOutcome
)

// Statuses, states, decisions and event types; see package api.
const (
	RunRunning        = api.RunRunning
	RunWaitingForUser = api.RunWaitingForUser
	RunReconciling    = api.RunReconciling
	RunCompleted      = api.RunCompleted
	RunFailed         = api.RunFailed
	RunCancelled      = api.RunCancelled

	StepModelCall     = api.StepModelCall
	StepToolCall      = api.StepToolCall
	StepHumanApproval = api.StepHumanApproval

	StepPending            = api.StepPending
	StepWaitingForApproval = api.StepWaitingForApproval
	StepRunning            = api.StepRunning
	StepOutcomeUnknown     = api.StepOutcomeUnknown
	StepSucceeded          = api.StepSucceeded
	StepFailed             = api.StepFailed
	StepRejected           = api.StepRejected
	StepExpired            = api.StepExpired
	StepSkipped            = api.StepSkipped

	ActionWaiting  = api.ActionWaiting
	ActionApproved = api.ActionApproved
	ActionRejected = api.ActionRejected
	ActionExpired  = api.ActionExpired

	DecisionApprove      = api.DecisionApprove
	DecisionReject       = api.DecisionReject
	ResolveRetry         = api.ResolveRetry
	ResolveMarkSucceeded = api.ResolveMarkSucceeded
	ResolveAbandon       = api.ResolveAbandon

	EventRunStatus        = api.EventRunStatus
	EventStepStatus       = api.EventStepStatus
	EventActionState      = api.EventActionState
	EventSignalIgnored    = api.EventSignalIgnored
	EventContinuedAsNew   = api.EventContinuedAsNew
	EventLookalikeIgnored = api.EventLookalikeIgnored
)
