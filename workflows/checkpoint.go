package workflows

import (
	"errors"
	"strconv"

	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
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
	if w.EventSequence == w.eventSeqAtStart {
		return false
	}
	info := workflow.GetInfo(ctx)
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= w.in.HistoryThreshold
}

// continueAsNew drains the signals already delivered, then starts a fresh
// history that carries the Checkpoint.
func (w *agentRun) continueAsNew(ctx workflow.Context) (api.RunResult, error) {
	if err := workflow.Await(ctx, func() bool {
		return w.approvalCh.Len() == 0 && w.resolveCh.Len() == 0 && w.refusalCh.Len() == 0 && workflow.AllHandlersFinished(ctx)
	}); err != nil {
		return w.end(ctx, err)
	}
	w.Run.Generation++
	w.emit(ctx, api.EventContinuedAsNew, "", string(w.Run.Status), "history length "+strconv.Itoa(workflow.GetInfo(ctx).GetCurrentHistoryLength()))
	w.settleCheck(ctx)
	next := w.in
	next.Checkpoint = w.checkpoint()
	return api.RunResult{}, workflow.NewContinueAsNewError(ctx, api.WorkflowName, next)
}

// checkpoint is the run's state as continue-as-new carries it, bounded.
func (s *runState) checkpoint() *api.Checkpoint {
	return compacted(s.Checkpoint, compactAfterSteps, maxRetainedEvents)
}

// restore makes a checkpoint the run's state.
func (s *runState) restore(cp *api.Checkpoint) {
	s.Checkpoint = *cp
}
