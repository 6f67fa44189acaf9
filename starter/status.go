package main

import (
	"context"
	"flag"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

const statusSynopsis = "status RUN_ID [--json]"

// statusCommand shows a run's snapshot.
type statusCommand struct {
	env  *env
	json bool
}

func (c *statusCommand) flags() *flag.FlagSet {
	fs := newFlagSet("status")
	fs.BoolVar(&c.json, "json", false, "print the snapshot as JSON")
	return fs
}

func (c *statusCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	runID, err := parseRunID(fs, statusSynopsis, args)
	if err != nil {
		return err
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	snap, err := rc.SnapshotAllSteps(ctx, runID)
	if err != nil {
		return err
	}
	if c.json {
		return runview.JSON(c.env.stdout, snap)
	}
	tries, err := describeTries(ctx, rc, runID, snap.Steps)
	if err != nil {
		return err
	}
	return runview.Status(c.env.stdout, runID, snap, tries)
}

// describeTries asks Temporal for the tries of the run's activities in flight
// and matches them to its steps.
func describeTries(ctx context.Context, rc *runclient.Client, runID string, steps []api.AgentStep) (map[string]runview.Try, error) {
	desc, err := rc.Describe(ctx, runID)
	if err != nil {
		return nil, err
	}
	return runview.TriesByStep(steps, desc.PendingActivities), nil
}
