package api

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// StepType is the kind of an AgentStep.
type StepType string

// Step types.
const (
	StepModelCall     StepType = "model_call"
	StepToolCall      StepType = "tool_call"
	StepHumanApproval StepType = "human_approval"
)

// IsPermissionCheck says whether the step is the run's own check of a
// decider's GitHub permission on the repository (a tool_call of
// ToolCheckRepoPermission, for a run that names no approvers). It succeeds
// when GitHub answered, whatever the permission; its safeOutput says which.
func (s AgentStep) IsPermissionCheck() bool {
	return s.Type == StepToolCall && s.ToolName == ToolCheckRepoPermission
}

// StepStatus is the status of an AgentStep.
type StepStatus string

// Step statuses.
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

// StepEffect is how a succeeded action's effect came to be (AgentStep.Effect).
type StepEffect string

// Step effects.
const (
	// EffectMade: the step's attempt made it.
	EffectMade StepEffect = "made"
	// EffectFound: a look found it already made under the step's
	// operationKey (or under the one of the run it follows up), and
	// nothing was sent again.
	EffectFound StepEffect = "found"
	// EffectMarked: an operator resolved the step as done.
	EffectMarked StepEffect = "marked"
)

// IsTerminal reports whether a step status is final: the lifecycle table
// (lifecycle.go) lets it move nowhere.
func (s StepStatus) IsTerminal() bool { return terminal(stepTransitions, s) }

// AgentStep is one model call, tool call or approval of a run.
type AgentStep struct {
	ID           string          `json:"id"`
	RunID        string          `json:"runId"`
	Sequence     int             `json:"sequence"`
	Type         StepType        `json:"type"`
	Status       StepStatus      `json:"status"`
	CallID       string          `json:"callId,omitempty"`
	ToolName     string          `json:"toolName,omitempty"`
	SafeInput    json.RawMessage `json:"safeInput,omitempty"`
	SafeOutput   json.RawMessage `json:"safeOutput,omitempty"`
	OperationKey string          `json:"operationKey,omitempty"`
	// KeyRecordedAt is when the run recorded OperationKey, in workflow
	// time, before the first attempt: every attempt and look of the step
	// gets it (tools.Call.KeyRecordedAt), the same after retries and
	// continue-as-new. Nil for a run recorded before it.
	KeyRecordedAt      *time.Time `json:"keyRecordedAt,omitempty"`
	ExternalResourceID string     `json:"externalResourceId,omitempty"`
	// Effect says how a succeeded action's effect came to be: made by its
	// attempt, found by a look (an earlier attempt made it and its answer
	// was lost), or marked done by an operator. Empty for other steps and
	// for runs recorded before it.
	Effect      StepEffect `json:"effect,omitempty"`
	Attempt     int        `json:"attempt"`
	Error       string     `json:"error,omitempty"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
	DurationMs  int64      `json:"durationMs"`
	Usage       *Usage     `json:"usage,omitempty"`
	// Words are an action step's tool's (ToolSpec.Words, filled in), so that
	// its title and outcome read in the tool's words; nil for other steps.
	Words *ToolWords `json:"words,omitempty"`
	// ResendNotBefore is, for an action whose last attempt's outcome is in
	// doubt, the earliest time the same operationKey may be sent again:
	// past it, no request of that attempt can still land. It is recorded
	// when the attempt's answer comes, and every attempt after it waits
	// for it (the gate), looking again until then.
	ResendNotBefore *time.Time `json:"resendNotBefore,omitempty"`
	// RetryOrderedBy names the operator whose resolve "retry" the step's
	// next attempt carries: once the earlier attempt can no longer land it
	// is sent even when a look cannot tell.
	RetryOrderedBy string `json:"retryOrderedBy,omitempty"`
}

// StepActivityID is the activity ID a run gives the activity of one of its
// steps (runs since the tool registry): the step's ID, then for an action
// what the activity does in which attempt ("step-7.create-2"). Clients read
// a pending activity's step with StepOfActivity.
func StepActivityID(stepID, what string, attempt int) string {
	if what == "" {
		return stepID
	}
	return fmt.Sprintf("%s.%s-%d", stepID, what, attempt)
}

// ReadRetry is what StepActivityID names the activity of a read's tries
// after its first ("step-3.retry-2"): the first try is a local activity,
// which the server does not list among the pending activities.
const ReadRetry = "retry"

// TriesBefore is how many tries of a step ran before the first attempt of
// the activity an ID names: one for a read's retries, none otherwise.
func TriesBefore(activityID string) int32 {
	if strings.Contains(activityID, "."+ReadRetry+"-") {
		return 1
	}
	return 0
}

// StepOfActivity is the step an activity ID names, or "" when the activity
// was not given one by StepActivityID (the permission check's local activity).
func StepOfActivity(activityID string) string {
	step, _, _ := strings.Cut(activityID, ".")
	if !strings.HasPrefix(step, "step-") {
		return ""
	}
	return step
}
