package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

const (
	approveSynopsis = "approve RUN_ID (--action ID | --all) --as LOGIN [--reason TEXT]"
	rejectSynopsis  = "reject RUN_ID --action ID --as LOGIN --reason TEXT"
)

// decideCommand approves or rejects a run's pending action.
type decideCommand struct {
	env     *env
	approve bool

	actionID string
	as       string
	reason   string
	// all approves every waiting action of the run (approve only).
	all bool
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
	if c.approve {
		fs.BoolVar(&c.all, "all", false, "approve every waiting action of the run: as one batch when its agent takes batches, else one by one")
	}
	return fs
}

func (c *decideCommand) Run(ctx context.Context, args []string) error {
	sig, runID, err := c.parse(args)
	if err != nil {
		return err
	}
	if c.all {
		return c.approveAll(ctx, runID, sig)
	}
	send := func(ctx context.Context, rc *runclient.Client, runID string) error { return rc.Decide(ctx, runID, sig) }
	return signalOpenRun(ctx, c.env, runID, send, func(ev api.Event) bool {
		return ev.Type == api.EventActionState
	})
}

func (c *decideCommand) parse(args []string) (api.ApprovalSignal, string, error) {
	fs := c.flags()
	runID, err := parseRunID(fs, c.synopsis(), args)
	if err != nil {
		return api.ApprovalSignal{}, "", err
	}
	switch {
	case c.all && strings.TrimSpace(c.actionID) != "":
		err = errors.New("--all approves every waiting action; leave out --action")
	case !c.all && strings.TrimSpace(c.actionID) == "":
		err = errors.New("--action is required")
	case strings.TrimSpace(c.as) == "":
		err = errors.New("--as is required")
	case !c.approve && strings.TrimSpace(c.reason) == "":
		err = errors.New("--reason is required to reject")
	}
	if err != nil {
		return api.ApprovalSignal{}, "", usageErr(fs, c.synopsis(), err)
	}
	decision := api.DecisionReject
	if c.approve {
		decision = api.DecisionApprove
	}
	return api.ApprovalSignal{
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
