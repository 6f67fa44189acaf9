// This file is where a run meets the stop switch: before an attempt of an
// action is sent, it asks the holds workflow (holds.go) whether an
// operator's hold matches its agent, target or tool, and waits while one
// does. The run asks (a local activity querying the holds workflow), rather
// than the holds workflow pushing to runs, because only the run knows when
// it is about to act: a push would have to find every open run, and one
// that started after the hold would never hear of it. The holds workflow
// pushes only the release, to the runs that told it they wait.

package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

const (
	// holdRecheck is how often a held run looks again without being told
	// of a release: a safety net, since the release's signal is durable.
	holdRecheck = 10 * time.Minute
	// holdUnreadableRecheck is how soon a run that could not read the holds
	// tries again. It does not send meanwhile: a stop switch that a broken
	// read turns off is no stop switch.
	holdUnreadableRecheck = 30 * time.Second
	holdCheckTimeout      = 10 * time.Second
)

// clearOfHolds returns once no hold matches the step's action, or once the
// run is cancelled (the caller then ends the step unsent). While held, the
// run's label and the step's events say "held by ops: <reason>"; the run
// stays running, since nothing about it changed but that it waits. A hold
// placed after this check passed does not stop the attempt it let through:
// that attempt is in flight, and finishes and reconciles as any other.
func (w *agentRun) clearOfHolds(ctx workflow.Context, st *api.AgentStep, c tools.Checked) error {
	check := api.HoldCheck{RunID: w.Run.ID, Agent: w.in.Agent, Tool: st.ToolName, Targets: holdTargets(w.Run.TargetName(), c.Touches)}
	shown := ""
	defer func() { w.heldByOps = false }()
	for {
		hold, err := w.checkHolds(ctx, check)
		w.heldByOps = err == nil && hold != nil
		if err == nil && hold == nil {
			if shown != "" {
				w.stepNote(ctx, st, "hold released; sending")
				w.setRunStatus(ctx, api.RunRunning, words(st).Making(), "hold released")
			}
			return nil
		}
		var label, detail string
		wait := holdRecheck
		if err != nil {
			label, wait = "held: the holds could not be read", holdUnreadableRecheck
			detail = label + ": " + errorMessage(err)
		} else {
			label = hold.Label()
			detail = fmt.Sprintf("%s (hold on %s by %s at %s); not sent until it is released", label, hold.Selector, hold.By, clock(hold.At))
			// Told before it waits: a release in between wakes it at once.
			if err := workflow.SignalExternalWorkflow(ctx, api.HoldsWorkflowID(workflow.GetInfo(ctx).TaskQueueName), "", api.SignalHoldWaiter, check).Get(ctx, nil); err != nil {
				wait = holdUnreadableRecheck
			}
		}
		if detail != shown {
			w.stepNote(ctx, st, detail)
			w.setRunStatus(ctx, api.RunRunning, label, detail)
			shown = detail
		}
		released := w.holdsReleased
		if _, err := workflow.AwaitWithTimeout(ctx, wait, func() bool { return w.holdsReleased != released }); err != nil {
			if w.cancelling(ctx) != nil {
				return nil
			}
			return err
		}
		if w.cancelling(ctx) != nil {
			return nil
		}
	}
}

// checkHolds runs CheckHolds as a local activity: a read, inside the
// workflow task that is about to send, with no round trip through the
// server.
func (w *agentRun) checkHolds(ctx workflow.Context, check api.HoldCheck) (*api.Hold, error) {
	lctx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		StartToCloseTimeout: holdCheckTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
		Summary:             "Check the operators' holds on " + check.Agent + ", " + check.Tool,
	})
	// By name: a method value would run on the workflow's nil *Activities.
	var m api.HoldMatch
	if err := workflow.ExecuteLocalActivity(lctx, api.ActivityCheckHolds, check).Get(ctx, &m); err != nil {
		return nil, err
	}
	return m.Hold, nil
}

// holdTargets are the targets a hold on a target may name for this action:
// the run's, and the one the action touches when it differs.
func holdTargets(run, touches string) []string {
	if touches == "" || touches == run {
		return []string{run}
	}
	return []string{run, touches}
}
