package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
)

// runState is everything a run knows. Only the methods in this file change
// statuses; each change bumps the version and appends an event.
type runState struct {
	in       RunInput
	target   activities.Target
	record   Run
	steps    []*AgentStep
	events   []Event
	eventSeq int64
	// eventSeqAtStart is eventSeq when this generation began.
	eventSeqAtStart int64
	stepSeq         int
	conversation    []activities.Message
	actions         []*PendingAction
	label           string
	// openToolCalls are the tool calls of the last decision not yet run.
	openToolCalls []activities.ToolCall
	// awaitingResolve is the step ID an operator must resolve, if any.
	awaitingResolve string
	resolution      *ResolveSignal
	approvalCh      workflow.ReceiveChannel
	resolveCh       workflow.ReceiveChannel
	refusalCh       workflow.ReceiveChannel
	// badToolCalls counts consecutive tool calls the model got wrong.
	badToolCalls int
	// hardened is true when the run took the security batch
	// (securityChangeID); false only while replaying an older history.
	hardened bool
	// policy is true when the run took the policy and outcome batch
	// (policyChangeID); false only while replaying an older history.
	policy bool
	// queued are decisions waiting for their decider's permission check,
	// oldest first (policy.go).
	queued []ApprovalSignal
}

// maxRetainedEvents bounds the events a checkpoint carries.
const maxRetainedEvents = 1000

func (s *runState) touch(ctx workflow.Context) {
	s.record.Version++
	s.record.UpdatedAt = workflow.Now(ctx)
}

func (s *runState) emit(ctx workflow.Context, typ, stepID, status, detail string) {
	s.eventSeq++
	s.touch(ctx)
	s.record.LastCommittedSequence = s.eventSeq
	s.events = append(s.events, Event{
		Sequence: s.eventSeq,
		At:       workflow.Now(ctx),
		Type:     typ,
		StepID:   stepID,
		Status:   status,
		Label:    s.label,
		Detail:   detail,
	})
	s.refreshDetails(ctx)
}

// mustNotFail turns a lifecycle violation into a panic: Temporal then fails
// the workflow task and retries it, so the bug is visible and nothing moves on
// from a state the lifecycle does not know.
func mustNotFail(err error) {
	if err != nil {
		panic(err)
	}
}

func (s *runState) setLabel(label string) {
	s.label = label
}

// setRunStatus moves the run to a new status with a label.
func (s *runState) setRunStatus(ctx workflow.Context, to RunStatus, label, detail string) {
	s.setLabel(label)
	if s.record.Status == to {
		s.emit(ctx, EventRunStatus, "", string(to), detail)
		return
	}
	mustNotFail(checkRunTransition(s.record.Status, to))
	s.record.Status = to
	countRunStatus(ctx, to)
	s.emit(ctx, EventRunStatus, "", string(to), detail)
	s.upsertStatus(ctx)
}

func (s *runState) upsertStatus(ctx workflow.Context) {
	err := workflow.UpsertTypedSearchAttributes(ctx, SearchAttrStatus.ValueSet(string(s.record.Status)))
	if err != nil {
		workflow.GetLogger(ctx).Warn("upsert AgentRunStatus failed", "error", err)
	}
}

// newStep appends a pending step with the next sequence number.
func (s *runState) newStep(ctx workflow.Context, typ StepType, callID, tool string, safeInput []byte) *AgentStep {
	s.stepSeq++
	st := &AgentStep{
		ID:        fmt.Sprintf("step-%d", s.stepSeq),
		RunID:     s.record.ID,
		Sequence:  s.stepSeq,
		Type:      typ,
		Status:    StepPending,
		CallID:    callID,
		ToolName:  tool,
		SafeInput: safeInput,
		Attempt:   1,
	}
	s.steps = append(s.steps, st)
	s.emit(ctx, EventStepStatus, st.ID, string(StepPending), "")
	return st
}

// setStepStatus moves a step to a new status, keeping its timing.
func (s *runState) setStepStatus(ctx workflow.Context, st *AgentStep, to StepStatus, detail string) {
	mustNotFail(checkStepTransition(st.Status, to))
	now := workflow.Now(ctx)
	st.Status = to
	if st.StartedAt == nil && to != StepPending {
		st.StartedAt = &now
	}
	if to.IsTerminal() {
		st.CompletedAt = &now
		st.DurationMs = now.Sub(*st.StartedAt).Milliseconds()
	}
	if detail != "" && (to == StepFailed || to == StepOutcomeUnknown) {
		st.Error = detail
	}
	s.emit(ctx, EventStepStatus, st.ID, string(to), detail)
}

// stepNote records a change to a step that is not a status change (a new
// attempt, an output) so that it, too, is an event.
func (s *runState) stepNote(ctx workflow.Context, st *AgentStep, detail string) {
	s.emit(ctx, EventStepStatus, st.ID, string(st.Status), detail)
}

func (s *runState) setActionState(ctx workflow.Context, pa *PendingAction, to ActionState, by, reason string) {
	mustNotFail(checkActionTransition(pa.State, to))
	now := workflow.Now(ctx)
	pa.State = to
	pa.DecidedBy = by
	pa.Reason = reason
	pa.DecidedAt = &now
	countActionState(ctx, pa, to)
	s.emit(ctx, EventActionState, pa.StepID, string(to), reason)
}

// ignore records a signal that changed nothing, and why.
func (s *runState) ignore(ctx workflow.Context, stepID, why string) {
	workflow.GetLogger(ctx).Info("signal ignored", "reason", why)
	s.emit(ctx, EventSignalIgnored, stepID, "", why)
}

func (s *runState) actionByID(id string) *PendingAction {
	for _, pa := range s.actions {
		if pa.ID == id {
			return pa
		}
	}
	return nil
}

func (s *runState) appendToolResult(callID, tool, content string) {
	s.conversation = append(s.conversation, activities.Message{
		Role: activities.RoleTool, ToolCallID: callID, Name: tool, Content: content,
	})
}

func (s *runState) modelCalls() int {
	n := 0
	for _, st := range s.steps {
		if st.Type == StepModelCall {
			n++
		}
	}
	return n
}

// snapshot copies the state for the run query.
func (s *runState) snapshot(ctx workflow.Context) RunSnapshot {
	snap := RunSnapshot{
		Run:     s.record,
		Steps:   make([]AgentStep, 0, len(s.steps)),
		Actions: make([]PendingAction, 0, len(s.actions)),
		Label:   s.label,
		// The resolve rule (ResolveApplies) reads this, not the label.
		AwaitingResolve: s.awaitingResolve,
		Checkpoint: CheckpointView{
			Generation:         s.record.Generation,
			StepSequence:       s.stepSeq,
			EventSequence:      s.eventSeq,
			ConversationLength: len(s.conversation),
			HistoryLength:      workflow.GetInfo(ctx).GetCurrentHistoryLength(),
			HistoryThreshold:   s.in.HistoryThreshold,
		},
	}
	snap.Outcome = s.outcome()
	for _, st := range s.steps {
		snap.Steps = append(snap.Steps, *st)
	}
	for _, pa := range s.actions {
		snap.Actions = append(snap.Actions, *pa)
	}
	if n := len(snap.Actions); n > 0 {
		last := snap.Actions[n-1]
		snap.PendingAction = &last
	}
	return snap
}

// eventsSince returns the events after a sequence number, in order.
func (s *runState) eventsSince(since int64) []Event {
	out := []Event{}
	for _, e := range s.events {
		if e.Sequence > since {
			out = append(out, e)
		}
	}
	return out
}

func durationOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}
