package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"strings"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/workflows"
)

const (
	approveSynopsis = "approve RUN_ID --action ID --as LOGIN [--reason TEXT]"
	rejectSynopsis  = "reject RUN_ID --action ID --as LOGIN --reason TEXT"
)

// decideCommand approves or rejects a run's pending action.
type decideCommand struct {
	env     *env
	approve bool

	actionID string
	as       string
	reason   string
}

func (c *decideCommand) synopsis() string {
	if c.approve {
		return approveSynopsis
	}
	return rejectSynopsis
}

func (c *decideCommand) flags() *flag.FlagSet {
	fs := newFlagSet("reject")
	if c.approve {
		fs = newFlagSet("approve")
	}
	fs.StringVar(&c.actionID, "action", "", "the pending action's `ID` (see `starter status`)")
	fs.StringVar(&c.as, "as", "", "your GitHub `LOGIN`")
	fs.StringVar(&c.reason, "reason", "", "why (required to reject)")
	return fs
}

func (c *decideCommand) Run(ctx context.Context, args []string) error {
	sig, runID, err := c.parse(args)
	if err != nil {
		return err
	}
	tc, err := c.env.temporal(ctx)
	if err != nil {
		return err
	}
	if err := requireOpenRun(ctx, tc, runID); err != nil {
		return err
	}
	reaction, err := signalAndWatch(ctx, c.env, tc, runID, workflows.SignalApproval, sig, func(ev workflows.Event) bool {
		return ev.Type == workflows.EventActionState
	})
	if err != nil {
		return err
	}
	return renderReaction(c.env.stdout, reaction)
}

func (c *decideCommand) parse(args []string) (workflows.ApprovalSignal, string, error) {
	fs := c.flags()
	positional, err := parseArgs(fs, c.synopsis(), args)
	if err != nil {
		return workflows.ApprovalSignal{}, "", err
	}
	runID, err := oneRunID(fs, c.synopsis(), positional)
	if err != nil {
		return workflows.ApprovalSignal{}, "", err
	}
	switch {
	case strings.TrimSpace(c.actionID) == "":
		err = errors.New("--action is required")
	case strings.TrimSpace(c.as) == "":
		err = errors.New("--as is required")
	case !c.approve && strings.TrimSpace(c.reason) == "":
		err = errors.New("--reason is required to reject")
	}
	if err != nil {
		return workflows.ApprovalSignal{}, "", usageErr(fs, c.synopsis(), err)
	}
	decision := workflows.DecisionReject
	if c.approve {
		decision = workflows.DecisionApprove
	}
	return workflows.ApprovalSignal{
		ActionID:  c.actionID,
		Decision:  decision,
		Approver:  c.as,
		Reason:    c.reason,
		RequestID: newRequestID(),
	}, runID, nil
}

// newRequestID makes each command invocation one request: the run applies a
// requestId at most once.
func newRequestID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+).
	return "cli-" + hex.EncodeToString(b)
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
