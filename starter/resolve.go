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

const resolveSynopsis = "resolve RUN_ID --step ID --decision retry|mark_succeeded|abandon --as LOGIN [--external-id ID]"

// resolveCommand tells a run what happened to a step whose outcome
// reconciliation could not determine.
type resolveCommand struct {
	env *env

	stepID     string
	decision   string
	as         string
	externalID string
}

func (c *resolveCommand) flags() *flag.FlagSet {
	fs := newFlagSet("resolve")
	fs.StringVar(&c.stepID, "step", "", "the step's `ID` (see `starter status`)")
	fs.StringVar(&c.decision, "decision", "", "retry, mark_succeeded or abandon")
	fs.StringVar(&c.as, "as", "", "your `LOGIN`")
	fs.StringVar(&c.externalID, "external-id", "", "the `ID` of what the action made (the comment, the ticket), with mark_succeeded, when you found it")
	return fs
}

func (c *resolveCommand) Run(ctx context.Context, args []string) error {
	sig, runID, err := c.parse(args)
	if err != nil {
		return err
	}
	send := func(ctx context.Context, rc *runclient.Client, runID string, _ runclient.Reach) error {
		return rc.Resolve(ctx, runID, sig)
	}
	return signalOpenRun(ctx, c.env, runID, send, func(ev api.Event) bool {
		return ev.Type == api.EventStepStatus && ev.StepID == sig.StepID
	})
}

func (c *resolveCommand) parse(args []string) (api.ResolveSignal, string, error) {
	fs := c.flags()
	runID, err := parseRunID(fs, resolveSynopsis, args)
	if err != nil {
		return api.ResolveSignal{}, "", err
	}
	if err := c.validate(); err != nil {
		return api.ResolveSignal{}, "", usageErr(fs, resolveSynopsis, err)
	}
	return api.ResolveSignal{
		StepID:             c.stepID,
		Decision:           c.decision,
		ExternalResourceID: c.externalID,
		By:                 c.as,
	}, runID, nil
}

func (c *resolveCommand) validate() error {
	switch {
	case strings.TrimSpace(c.stepID) == "":
		return errors.New("--step is required")
	case strings.TrimSpace(c.as) == "":
		return errors.New("--as is required")
	case c.decision != api.ResolveRetry && c.decision != api.ResolveMarkSucceeded && c.decision != api.ResolveAbandon:
		return fmt.Errorf("--decision %q: want retry, mark_succeeded or abandon", c.decision)
	case c.externalID != "" && c.decision != api.ResolveMarkSucceeded:
		return errors.New("--external-id goes only with --decision mark_succeeded")
	}
	return nil
}
