package main

import (
	"context"

	"github.com/agentrun/agentrun/runclient"
)

// reachOpenRun finds the run a person's command goes to, failing unless it
// exists and can still take a signal: a signal to a closed run would be
// lost without a word. A run no worker answers for is reached all the
// same, with its last known state: Temporal keeps the signal for it.
func reachOpenRun(ctx context.Context, rc *runclient.Client, runID string) (runclient.Reach, error) {
	reach, err := rc.Reach(ctx, runID)
	if err != nil {
		return reach, err
	}
	if !reach.Open {
		return reach, &runClosedError{runID: runID, status: reach.EndedAs}
	}
	return reach, nil
}
