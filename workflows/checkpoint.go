package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
)

// errContinueAsNew unwinds a wait so that the loop can continue as new.
var errContinueAsNew = errors.New("continue as new")

// compactAfterSteps: older steps than the newest this many lose their
// input and output in a checkpoint; statuses, keys and IDs stay.
const compactAfterSteps = 200

// continueAsNewDue is true when the history should start afresh. A
// generation must have recorded something first, so that a tiny threshold
// cannot make the run continue as new forever without moving.
func (w *agentRun) continueAsNewDue(ctx workflow.Context) bool {
	if w.eventSeq == w.eventSeqAtStart {
		return false
	}
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= w.in.HistoryThreshold
}

// continueAsNew drains the signals already delivered, then starts a fresh
// history that carries the Checkpoint.
func (w *agentRun) continueAsNew(ctx workflow.Context) (RunResult, error) {
	if err := workflow.Await(ctx, func() bool {
		return w.approvalCh.Len() == 0 && w.resolveCh.Len() == 0 && w.refusalCh.Len() == 0 && workflow.AllHandlersFinished(ctx)
	}); err != nil {
		return w.end(ctx, err)
	}
	w.record.Generation++
	w.emit(ctx, EventContinuedAsNew, "", string(w.record.Status), "history length "+strconv.Itoa(workflow.GetInfo(ctx).GetCurrentHistoryLength()))
	next := w.in
	next.Checkpoint = w.checkpoint()
	return RunResult{}, workflow.NewContinueAsNewError(ctx, AgentRun, next)
}

func (w *agentRun) checkpoint() *Checkpoint {
	cp := &Checkpoint{
		Run:             w.record,
		Conversation:    append([]activities.Message(nil), w.conversation...),
		EventSequence:   w.eventSeq,
		StepSequence:    w.stepSeq,
		Label:           w.label,
		OpenToolCalls:   w.openToolCalls,
		AwaitingResolve: w.awaitingResolve,
		BadToolCalls:    w.badToolCalls,
		QueuedDecisions: w.queued,
	}
	for i, st := range w.steps {
		c := *st
		if i < len(w.steps)-compactAfterSteps && c.Status.IsTerminal() {
			c.SafeInput, c.SafeOutput = nil, nil
		}
		cp.Steps = append(cp.Steps, c)
	}
	for _, pa := range w.actions {
		cp.Actions = append(cp.Actions, *pa)
	}
	events := w.events
	if len(events) > maxRetainedEvents {
		events = events[len(events)-maxRetainedEvents:]
	}
	cp.Events = append([]Event(nil), events...)
	return cp
}

func (w *agentRun) restore(ctx workflow.Context, cp *Checkpoint) {
	w.record = cp.Run
	w.conversation = cp.Conversation
	w.eventSeq = cp.EventSequence
	w.stepSeq = cp.StepSequence
	w.label = cp.Label
	w.openToolCalls = cp.OpenToolCalls
	w.awaitingResolve = cp.AwaitingResolve
	w.badToolCalls = cp.BadToolCalls
	w.queued = cp.QueuedDecisions
	w.events = cp.Events
	for i := range cp.Steps {
		st := cp.Steps[i]
		w.steps = append(w.steps, &st)
	}
	for i := range cp.Actions {
		pa := cp.Actions[i]
		w.actions = append(w.actions, &pa)
	}
}
