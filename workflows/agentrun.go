package workflows

import (
	"errors"

	"go.temporal.io/sdk/workflow"
)

// AgentRun is the durable agent loop. (Being written.)
func AgentRun(ctx workflow.Context, in RunInput) (RunResult, error) {
	return RunResult{}, errors.New("not implemented yet")
}
