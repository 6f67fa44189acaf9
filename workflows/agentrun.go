package workflows

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// maxBadToolCalls bounds how often in a row the model may get a tool call
// wrong before the run gives up.
const maxBadToolCalls = 3

func failedAtSetup(err error) (api.RunResult, error) {
	return api.RunResult{Status: api.RunFailed, Error: err.Error()}, temporal.NewNonRetryableApplicationError(err.Error(), api.ErrTypeRunFailed, nil)
}

type agentRun struct {
	runState
}

// setup restores or creates the run state and registers queries and signals.
// It fails only on an invalid input, after the run query can say so.
func setup(ctx workflow.Context, in api.RunInput, reg *tools.Registry) (*agentRun, error) {
	w := &agentRun{}
	w.registry = reg
	info := workflow.GetInfo(ctx)
	agentErr := w.chooseAgent(&in)
	in = in.WithDefaults(info.WorkflowExecution.ID)
	cp := in.Checkpoint
	var refused error
	if cp != nil && !carriedByContinueAsNew(info.ContinuedExecutionRunID, info.Attempt, info.CronSchedule) {
		// A checkpoint is the run's own memory, approvals included; taken
		// from a start request it would let anyone post an action "already
		// approved". The run starts empty only to fail where queries see it.
		refused = errors.New("refused: the input carries a checkpoint, which only this run's own continue-as-new may pass; start a run without one")
		cp = nil
	}
	w.in = in
	w.in.Checkpoint = nil
	if cp != nil {
		w.restore(cp)
		w.eventSeqAtStart = w.EventSequence
	} else {
		now := workflow.Now(ctx)
		w.Run = in.NewRun(info.WorkflowExecution.ID, now)
		w.Run.BatchApproval = w.agent.BatchApproval
		w.Label = api.LabelStarting
		countRun(ctx, w.in.Agent, api.MetricRunsStarted)
	}
	if err := w.registerHandlers(ctx); err != nil {
		return nil, err
	}
	w.upsertStartAttrs(ctx, in.ConversationID)
	target, err := runTarget(in, w.agent)
	if refused != nil {
		err = refused
	} else if agentErr != nil {
		err = agentErr
	}
	if err != nil {
		w.Run.Error = err.Error()
		w.setRunStatus(ctx, api.RunFailed, api.LabelFailed, err.Error())
		return nil, err
	}
	w.target = target
	if cp == nil {
		// Computed once, here where the registry is: the starter and the
		// approval server print what the run recorded.
		w.Run.TargetLabel = target.LabelFrom(w.agent.TargetLabel)
	}
	if cp == nil && len(w.Conversation) == 0 {
		started := "run started by " + in.UserID
		if in.FollowUp == "" {
			w.Conversation = opening(w.agent.SystemPrompt, w.agent.Task, w.in)
		} else if err := w.startFollowUp(ctx); err != nil {
			w.Run.Error = err.Error()
			w.setRunStatus(ctx, api.RunFailed, api.LabelFailed, err.Error())
			return nil, err
		} else {
			started += ", following up on run " + in.FollowUp
		}
		w.emit(ctx, api.EventRunStatus, "", string(api.RunRunning), started)
	}
	return w, nil
}

// runTarget is the input's target, refused when the agent takes another
// kind or when its kind has no source of approvers and the run names none,
// and refused with a goal past api.CheckGoal: the run is the final word on
// each, whatever channel started it.
func runTarget(in api.RunInput, agent tools.Agent) (api.Target, error) {
	if err := api.CheckGoal(in.Goal); err != nil {
		return api.Target{}, fmt.Errorf("refused: %w", err)
	}
	target, err := in.RunTarget()
	if err != nil {
		return api.Target{}, err
	}
	if agent.Name == "" {
		return target, nil // chooseAgent's error says why
	}
	if err := api.AgentKindMismatch(agent.Name, agent.TargetKind, target); err != nil {
		return api.Target{}, fmt.Errorf("refused: %w", err)
	}
	if err := api.CheckApprovers(target, in.Approvers); err != nil {
		return api.Target{}, fmt.Errorf("refused: %w", err)
	}
	if err := api.CheckCheckRun(in.CheckRun, target); err != nil {
		return api.Target{}, fmt.Errorf("refused: %w", err)
	}
	if err := in.Supersedes.Validate(); err != nil {
		return api.Target{}, fmt.Errorf("refused: %w", err)
	}
	if in.Supersedes != nil && !target.IsPullRequest() {
		return api.Target{}, fmt.Errorf("refused: supersedes: only a pull request review marks an older review, not a %s run", target.KindName())
	}
	return target, nil
}

func (w *agentRun) registerHandlers(ctx workflow.Context) error {
	historyLength := func() int { return workflow.GetInfo(ctx).GetCurrentHistoryLength() }
	for _, q := range runQueries(&w.Checkpoint, historyLength, w.in.HistoryThreshold) {
		if err := workflow.SetQueryHandler(ctx, q.Name, q.Handler); err != nil {
			return fmt.Errorf("register %s query: %w", q.Name, err)
		}
	}
	w.listenForSignals(ctx)
	return nil
}

// run is the loop. It returns when the model gives a final answer, the run
// fails or is cancelled, or the history asks for a continue-as-new.
func (w *agentRun) run(root workflow.Context) (api.RunResult, error) {
	ctx := w.stoppable(root)
	for {
		for len(w.OpenToolCalls) > 0 {
			if w.cancelling(ctx) != nil {
				return w.endCancelled(ctx)
			}
			if w.continueAsNewDue(ctx) {
				return w.continueAsNew(ctx)
			}
			n, err := w.runReads(ctx)
			if err != nil {
				return w.end(ctx, err)
			}
			if n > 0 {
				w.OpenToolCalls = w.OpenToolCalls[n:]
				continue
			}
			call := w.OpenToolCalls[0]
			if err := w.runToolCall(ctx, call); errors.Is(err, errContinueAsNew) {
				return w.continueAsNew(ctx)
			} else if err != nil {
				return w.end(ctx, err)
			}
			w.OpenToolCalls = w.OpenToolCalls[1:]
		}
		if w.cancelling(ctx) != nil {
			return w.endCancelled(ctx)
		}
		if w.continueAsNewDue(ctx) {
			return w.continueAsNew(ctx)
		}
		if w.BadToolCalls > maxBadToolCalls {
			return w.end(ctx, fmt.Errorf("the model made %d invalid tool calls in a row", w.BadToolCalls))
		}
		if w.ModelCalls() >= w.in.MaxSteps {
			return w.end(ctx, fmt.Errorf("reached maxSteps (%d) without a final answer", w.in.MaxSteps))
		}
		decision, err := w.callModel(ctx)
		if err != nil {
			return w.end(ctx, err)
		}
		if len(decision.ToolCalls) == 0 {
			w.Run.Result = decision.Final
			if decision.Undone {
				// Nothing failed, but nothing was done either: neither
				// the label nor the outcome may say "Done".
				w.Run.Outcome = api.OutcomeNotDone
			}
			return w.end(ctx, nil)
		}
		w.Conversation = append(w.Conversation, api.Message{
			Role: api.RoleAssistant, Content: decision.Final, ToolCalls: decision.ToolCalls,
		})
		w.OpenToolCalls = decision.ToolCalls
	}
}

// end settles the run: cancelled when a cancel was accepted or the
// workflow was cancelled, completed when err is nil, failed otherwise.
func (w *agentRun) end(ctx workflow.Context, err error) (api.RunResult, error) {
	if w.cancelling(ctx) != nil || errors.Is(err, errCancelled) {
		return w.endCancelled(ctx)
	}
	if err == nil {
		label := api.LabelDone
		switch {
		case w.Run.Outcome == api.OutcomeNotDone:
			label = api.LabelNotDone
		case len(w.DegradedSteps) > 0:
			w.Run.Outcome = api.OutcomePartial
		default:
			w.Run.Outcome = api.OutcomeComplete
		}
		w.setRunStatus(ctx, api.RunCompleted, label, "")
		return api.RunResult{Status: api.RunCompleted, Answer: w.Run.Result, Outcome: resultOutcome(&w.Checkpoint)}, nil
	}
	w.Run.Error = err.Error()
	w.setRunStatus(ctx, api.RunFailed, api.LabelFailed, err.Error())
	return api.RunResult{Status: api.RunFailed, Error: err.Error(), Outcome: resultOutcome(&w.Checkpoint)}, temporal.NewNonRetryableApplicationError(err.Error(), api.ErrTypeRunFailed, nil)
}
