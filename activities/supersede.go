package activities

import (
	"context"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// MarkSuperseded marks an older run's posted review superseded
// (github.Access.MarkSuperseded): idempotent by its final body, so a
// retry after a lost answer finds the edit instead of making it again.
func (a *Activities) MarkSuperseded(ctx context.Context, req api.MarkSupersededRequest) (api.MarkSupersededResult, error) {
	if a.GitHub == nil {
		return api.MarkSupersededResult{}, temporal.NewNonRetryableApplicationError(
			"mark superseded: this worker has no GitHub access", api.ErrTypeGitHubRejected, nil)
	}
	return a.GitHub.MarkSuperseded(ctx, req)
}
