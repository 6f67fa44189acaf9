package main

import (
	"context"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

// signalOpenRun is what approve, reject, respond, cancel and resolve share:
// reach the run (open, answering or not), send the signal (send is one of
// the run client's signals), and print how the run answered, or that the
// signal is recorded for when a worker picks the run up. accepts
// recognises the event that is the signal's effect.
func signalOpenRun(ctx context.Context, e *env, runID string, send sendSignal, accepts func(api.Event) bool) error {
	rc, err := e.runClient(ctx)
	if err != nil {
		return err
	}
	reach, err := reachOpenRun(ctx, rc, runID)
	if err != nil {
		return err
	}
	reaction, err := signalAndWatch(ctx, e, rc, runID, reach, send, accepts)
	if err != nil {
		return err
	}
	return runview.Reaction(e.stdout, reaction)
}

// sendSignal sends one signal through the run client; reach is the run as
// the command found it.
type sendSignal func(ctx context.Context, rc *runclient.Client, runID string, reach runclient.Reach) error

// signalAndWatch sends a signal to the run as reach found it and, when a
// worker answered for the run, waits briefly for its answer: the first event that accepts recognises as
// the signal's effect, or an ignored-signal event. An ignored signal is an
// error carrying the run's reason. Without a worker the signal is recorded
// by Temporal alone, and the reaction says so with the run's last known
// state.
func signalAndWatch(ctx context.Context, e *env, rc *runclient.Client, runID string, reach runclient.Reach, send sendSignal, accepts func(api.Event) bool) (runview.SignalReaction, error) {
	if err := send(ctx, rc, runID, reach); err != nil {
		return runview.SignalReaction{}, err
	}
	unanswered := runview.SignalReaction{RunID: runID, Label: reach.Snapshot.Label, Status: reach.Snapshot.Run.Status}
	if !reach.Live {
		return unanswered, nil
	}
	answer, after, err := waitForAnswer(ctx, e, rc, runID, reach.Snapshot.Run.LastCommittedSequence, accepts)
	if err != nil {
		return runview.SignalReaction{}, err
	}
	if answer == nil {
		return unanswered, nil
	}
	r := runview.SignalReaction{RunID: runID, Event: answer, Label: after.Label, Status: after.Run.Status}
	if answer.Type == api.EventSignalIgnored {
		return r, &ignoredError{detail: answer.Detail}
	}
	return r, nil
}

// waitForAnswer polls the events after since until one is the run's answer
// or e.reactionWait passes; no answer is not an error (the worker may have
// gone: the signal is durable and will be handled later).
func waitForAnswer(ctx context.Context, e *env, rc *runclient.Client, runID string, since int64, accepts func(api.Event) bool) (*api.Event, api.RunSnapshot, error) {
	ctx, cancel := context.WithTimeout(ctx, e.reactionWait)
	defer cancel()
	for {
		events, err := rc.Events(ctx, runID, since)
		if err == nil {
			for _, ev := range events {
				if ev.Type == api.EventSignalIgnored || accepts(ev) {
					snap, err := rc.Snapshot(ctx, runID)
					return &ev, snap, err
				}
			}
		}
		if err := sleepCtx(ctx, e.pollEvery); err != nil {
			return nil, api.RunSnapshot{}, nil
		}
	}
}
