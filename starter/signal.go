package main

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/workflows"
)

// signalOpenRun is what approve, reject and resolve share: check the run can
// still take a signal, send it, and print how the run answered. accepts
// recognises the event that is the signal's effect.
func signalOpenRun(ctx context.Context, e *env, runID, name string, payload any, accepts func(workflows.Event) bool) error {
	tc, err := e.temporal(ctx)
	if err != nil {
		return err
	}
	if err := requireOpenRun(ctx, tc, runID); err != nil {
		return err
	}
	reaction, err := signalAndWatch(ctx, e, tc, runID, name, payload, accepts)
	if err != nil {
		return err
	}
	return renderReaction(e.stdout, reaction)
}

// reaction is what the run recorded after a signal.
type reaction struct {
	RunID string `json:"runId"`
	// Event is the run's answer: the accepting event or the ignored signal.
	Event *workflows.Event `json:"event,omitempty"`
	// Snapshot is the run right after it answered.
	Label  string              `json:"label"`
	Status workflows.RunStatus `json:"status"`
}

// signalAndWatch sends a signal and waits briefly for the run's answer: the
// first event that accepts recognises as the signal's effect, or an
// ignored-signal event. An ignored signal is an error carrying the run's reason.
func signalAndWatch(ctx context.Context, e *env, c client.Client, runID, name string, payload any, accepts func(workflows.Event) bool) (reaction, error) {
	before, err := querySnapshot(ctx, c, runID)
	if err != nil {
		return reaction{}, err
	}
	if err := c.SignalWorkflow(ctx, runID, "", name, payload); err != nil {
		return reaction{}, runError(runID, "signal "+name+" to", err)
	}
	answer, after, err := waitForAnswer(ctx, e, c, runID, before.Run.LastCommittedSequence, accepts)
	if err != nil {
		return reaction{}, err
	}
	r := reaction{RunID: runID, Event: answer, Label: after.Label, Status: after.Run.Status}
	if answer != nil && answer.Type == workflows.EventSignalIgnored {
		return r, &ignoredError{detail: answer.Detail}
	}
	return r, nil
}

// waitForAnswer polls the events after since until one is the run's answer
// or e.reactionWait passes; no answer is not an error (the worker may be
// down: the signal is durable and will be handled later).
func waitForAnswer(ctx context.Context, e *env, c client.Client, runID string, since int64, accepts func(workflows.Event) bool) (*workflows.Event, workflows.RunSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, e.reactionWait)
	defer cancel()
	for {
		events, err := queryEvents(ctx, c, runID, since)
		if err == nil {
			for _, ev := range events {
				if ev.Type == workflows.EventSignalIgnored || accepts(ev) {
					snap, err := querySnapshot(ctx, c, runID)
					return &ev, snap, err
				}
			}
		}
		if err := sleepCtx(ctx, e.pollEvery); err != nil {
			return nil, workflows.RunSnapshot{}, nil
		}
	}
}
