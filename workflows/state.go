package workflows

import (
	"fmt"
	"slices"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// runState is everything a run knows. Its Checkpoint is the run's state
// itself, the one value continue-as-new carries (see checkpoint); the other
// fields are rebuilt by every generation. Only the methods in this file
// change statuses; each change bumps the version and appends an event.
type runState struct {
	api.Checkpoint
	in     api.RunInput
	target api.Target
	// eventSeqAtStart is EventSequence when this generation began.
	eventSeqAtStart int64
	resolution      *api.ResolveSignal
	approvalCh      workflow.ReceiveChannel
	resolveCh       workflow.ReceiveChannel
	refusalCh       workflow.ReceiveChannel
	cancelCh        workflow.ReceiveChannel
	// holdsReleased counts the holds workflow's releases this generation
	// has heard of; a held run waits for it to change (hold.go).
	holdsReleased int
	// heldByOps: an operator's hold keeps the run's next attempt; its check
	// run says so without the operator's reason (checkWant).
	heldByOps bool
	// root is Temporal's context of the run; steady outlives a Temporal
	// cancellation request, so that an action in flight and its reconcile
	// finish; stop interrupts the loop's waits when a cancel is accepted.
	root     workflow.Context
	steady   workflow.Context
	stop     workflow.CancelFunc
	registry *tools.Registry
	agent    tools.Agent
	// encoding keeps the conversation's canonical JSON between model calls.
	encoding api.ConversationEncoding
	handoff  ConversationHandoff
	// localSinceWait: the last model call was local and the run has waited
	// on nothing the server holds since, so it is still in the workflow
	// task of that call. The next call is then an activity: a loop of local
	// reads and local model calls would never end its task, and queries,
	// which a worker answers between tasks, and the continue-as-new check
	// would wait for it.
	localSinceWait bool
	// check updates the run's check run (checkrun.go); nil for a run
	// without one.
	check *checkUpdater
}

// maxRetainedEvents bounds the events a checkpoint carries.
const maxRetainedEvents = 1000

func (s *runState) touch(ctx workflow.Context) {
	s.Run.Version++
	s.Run.UpdatedAt = workflow.Now(ctx)
}

func (s *runState) emit(ctx workflow.Context, typ, stepID, status, detail string) {
	s.EventSequence++
	s.touch(ctx)
	s.Run.LastCommittedSequence = s.EventSequence
	s.Events = append(s.Events, api.Event{
		Sequence: s.EventSequence,
		At:       workflow.Now(ctx),
		Type:     typ,
		StepID:   stepID,
		Status:   status,
		Label:    s.Label,
		Detail:   detail,
	})
	s.refreshDetails(ctx)
	s.noteCheck()
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
	s.Label = label
}

// setRunStatus moves the run to a new status with a label.
func (s *runState) setRunStatus(ctx workflow.Context, to api.RunStatus, label, detail string) {
	s.setLabel(label)
	if s.Run.Status == to {
		s.emit(ctx, api.EventRunStatus, "", string(to), detail)
		return
	}
	mustNotFail(api.CheckRunTransition(s.Run.Status, to))
	s.Run.Status = to
	countRunStatus(ctx, s.in.Agent, to)
	s.emit(ctx, api.EventRunStatus, "", string(to), detail)
	s.upsertStatus(ctx)
}

func (s *runState) upsertStatus(ctx workflow.Context) {
	// A wait publishes the run's action IDs too: one visibility write, not two.
	if err := workflow.UpsertTypedSearchAttributes(ctx, s.statusAttrs(s.Run.Status == api.RunWaitingForUser)...); err != nil {
		workflow.GetLogger(ctx).Warn("upsert AgentRunStatus failed", "error", err)
	}
	publishInbox(ctx, &s.Checkpoint)
	publishStanding(ctx, &s.Checkpoint)
}

// upsertStartAttrs makes the run's search attributes say its status, its
// waiting actions and its conversation when a generation starts. Only
// those that differ are written: a run started through runclient.Start, or
// continued as new, already carries them, and an upsert that changes
// nothing would still be one more event and one more visibility write.
func (s *runState) upsertStartAttrs(ctx workflow.Context, conversationID string) {
	has := workflow.GetTypedSearchAttributes(ctx)
	var attrs []temporal.SearchAttributeUpdate
	if v, ok := has.GetKeyword(api.SearchAttrStatus); !ok || v != string(s.Run.Status) {
		attrs = append(attrs, api.SearchAttrStatus.ValueSet(string(s.Run.Status)))
	}
	if len(s.Actions) > 0 {
		ids := actionIDs(&s.Checkpoint)
		if v, ok := has.GetKeywordList(api.SearchAttrActionIDs); !ok || !slices.Equal(v, ids) {
			attrs = append(attrs, api.SearchAttrActionIDs.ValueSet(ids))
		}
	}
	if v, ok := has.GetKeyword(api.SearchAttrConversation); !ok || v != conversationID {
		attrs = append(attrs, api.SearchAttrConversation.ValueSet(conversationID))
	}
	if len(attrs) == 0 {
		return
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, attrs...); err != nil {
		workflow.GetLogger(ctx).Warn("upsert search attributes failed", "error", err)
	}
}

func (s *runState) statusAttrs(withActionIDs bool) []temporal.SearchAttributeUpdate {
	attrs := []temporal.SearchAttributeUpdate{api.SearchAttrStatus.ValueSet(string(s.Run.Status))}
	if withActionIDs && len(s.Actions) > 0 {
		attrs = append(attrs, api.SearchAttrActionIDs.ValueSet(actionIDs(&s.Checkpoint)))
	}
	return attrs
}

// newStep appends a pending step with the next sequence number.
func (s *runState) newStep(ctx workflow.Context, typ api.StepType, callID, tool string, safeInput []byte) *api.AgentStep {
	s.StepSequence++
	st := &api.AgentStep{
		ID:        fmt.Sprintf("step-%d", s.StepSequence),
		RunID:     s.Run.ID,
		Sequence:  s.StepSequence,
		Type:      typ,
		Status:    api.StepPending,
		CallID:    callID,
		ToolName:  tool,
		SafeInput: safeInput,
		Attempt:   1,
	}
	s.Steps = append(s.Steps, st)
	s.emit(ctx, api.EventStepStatus, st.ID, string(api.StepPending), "")
	return st
}

// setStepStatus moves a step to a new status, keeping its timing.
func (s *runState) setStepStatus(ctx workflow.Context, st *api.AgentStep, to api.StepStatus, detail string) {
	mustNotFail(api.CheckStepTransition(st.Status, to))
	// A tool that ran and failed degrades the run; a call refused before it
	// ran (pending to failed) is the model's mistake, which it was told.
	if to == api.StepFailed && st.Type == api.StepToolCall && st.Status != api.StepPending {
		s.DegradedSteps = append(s.DegradedSteps, st.ID)
	}
	wasInDoubt := api.InDoubt(*st)
	now := workflow.Now(ctx)
	st.Status = to
	if st.StartedAt == nil && to != api.StepPending {
		st.StartedAt = &now
	}
	if to.IsTerminal() {
		st.CompletedAt = &now
		st.DurationMs = now.Sub(*st.StartedAt).Milliseconds()
	}
	switch {
	case detail != "" && (to == api.StepFailed || to == api.StepOutcomeUnknown):
		st.Error = detail
	case to == api.StepSucceeded:
		// Earlier attempts' errors stay in the step's events, once each.
		st.Error = ""
	}
	if wasInDoubt || api.InDoubt(*st) {
		s.refreshCautions() // it is, or was, named to the approvers
	}
	s.emit(ctx, api.EventStepStatus, st.ID, string(to), detail)
}

// stepNote records a change to a step that is not a status change (a new
// attempt, an output) so that it, too, is an event.
func (s *runState) stepNote(ctx workflow.Context, st *api.AgentStep, detail string) {
	s.emit(ctx, api.EventStepStatus, st.ID, string(st.Status), detail)
}

func (s *runState) setActionState(ctx workflow.Context, pa *api.PendingAction, to api.ActionState, by, reason string) {
	mustNotFail(api.CheckActionTransition(pa.State, to))
	now := workflow.Now(ctx)
	pa.State = to
	pa.DecidedBy = by
	pa.Reason = reason
	pa.DecidedAt = &now
	countActionState(ctx, s.in.Agent, pa, to)
	s.emit(ctx, api.EventActionState, pa.StepID, string(to), reason)
	// Decided while others wait, it must leave the waiting run's memo.
	if waitingCount(&s.Checkpoint) > 0 {
		publishInbox(ctx, &s.Checkpoint)
	}
}

// ignore records a signal that changed nothing, and why.
func (s *runState) ignore(ctx workflow.Context, stepID, why string) {
	workflow.GetLogger(ctx).Info("signal ignored", "reason", why)
	s.emit(ctx, api.EventSignalIgnored, stepID, "", why)
}

func (s *runState) appendToolResult(callID, tool, content string) {
	s.Conversation = append(s.Conversation, api.Message{
		Role: api.RoleTool, ToolCallID: callID, Name: tool, Content: content,
	})
}

// refreshDetails makes the Temporal UI's "current details" of the run follow
// its state; every event calls it. They are not part of the history, so they
// may change without a version gate, and they are built from workflow time,
// so they replay the same.
func (s *runState) refreshDetails(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, uiDetails(&s.Checkpoint, workflow.Now(ctx)))
}
