package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

const cancelSynopsis = "cancel RUN_ID --as LOGIN --reason TEXT"

// channelCLI is how a cancel from this command arrives; with --as it
// scopes the request's ID in the run.
const channelCLI = "CLI"

// cancelCommand asks a run to stop. The run decides whether --as may: its
// requester, an approver, or a writer when it names none. It stops once no
// action it started is in doubt.
type cancelCommand struct {
	env *env

	as     string
	reason string
}

func (c *cancelCommand) flags() *flag.FlagSet {
	fs := newFlagSet("cancel")
	fs.StringVar(&c.as, "as", "", "your `LOGIN`: the run's requester, an approver, or a writer when it names none")
	fs.StringVar(&c.reason, "reason", "", "why the run should stop (`TEXT`, required)")
	return fs
}

func (c *cancelCommand) Run(ctx context.Context, args []string) error {
	sig, runID, err := c.parse(args)
	if err != nil {
		return err
	}
	send := func(ctx context.Context, rc *runclient.Client, runID string, _ runclient.Reach) error {
		return rc.Cancel(ctx, runID, sig)
	}
	return signalOpenRun(ctx, c.env, runID, send, func(ev api.Event) bool {
		return ev.Type == api.EventCancelAccepted
	})
}

func (c *cancelCommand) parse(args []string) (api.CancelSignal, string, error) {
	fs := c.flags()
	runID, err := parseRunID(fs, cancelSynopsis, args)
	if err != nil {
		return api.CancelSignal{}, "", err
	}
	if err := c.validate(); err != nil {
		return api.CancelSignal{}, "", usageErr(fs, cancelSynopsis, err)
	}
	return api.CancelSignal{By: strings.TrimSpace(c.as), Reason: strings.TrimSpace(c.reason), RequestID: newRequestID(), Channel: channelCLI}, runID, nil
}

func (c *cancelCommand) validate() error {
	switch {
	case strings.TrimSpace(c.as) == "":
		return errors.New("--as is required")
	case strings.TrimSpace(c.reason) == "":
		return errors.New("--reason is required: a cancel must say why")
	case len(c.reason) > api.MaxCancelReasonBytes:
		return fmt.Errorf("--reason is %d bytes; at most %d", len(c.reason), api.MaxCancelReasonBytes)
	}
	return nil
}
