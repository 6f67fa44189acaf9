package main

import (
	"context"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

// describeTries asks Temporal for the tries of the run's activities in flight
// and matches them to its steps.
func describeTries(ctx context.Context, rc *runclient.Client, runID string, steps []api.AgentStep) (map[string]runview.Try, error) {
	desc, err := rc.Describe(ctx, runID)
	if err != nil {
		return nil, err
	}
	return runview.TriesByStep(steps, desc.PendingActivities), nil
}
