package main

import (
	"context"

	"github.com/agentrun/agentrun/runclient"
)

// requireOpenRun fails unless the run exists and can still take a signal:
// a signal to a closed run would be lost without a word.
func requireOpenRun(ctx context.Context, rc *runclient.Client, runID string) error {
	desc, err := rc.Describe(ctx, runID)
	if err != nil {
		return err
	}
	if !desc.Open() {
		return &runClosedError{runID: runID, status: desc.StatusName()}
	}
	return nil
}
