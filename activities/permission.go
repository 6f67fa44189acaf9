package activities

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// CheckRepoPermission asks GitHub for a person's permission on a
// repository. The workflow runs it for every decision on a run without
// approvers, so that the check is in the run's history whichever channel the
// decision came through.
func (a *Activities) CheckRepoPermission(ctx context.Context, in api.RepoPermissionInput) (api.RepoPermission, error) {
	if a.GitHub == nil {
		// Retrying cannot give this worker GitHub access: the decision is
		// refused now, in words that say how to start a run that works here.
		return api.RepoPermission{}, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("this worker has no GitHub access, so it cannot check %s's write permission on %s/%s; start the run with named approvers (--approver)",
				in.Login, in.Owner, in.Repo), api.ErrTypeNoPermissionSource, nil)
	}
	permission, err := a.GitHub.Permission(ctx, in.Owner, in.Repo, in.Login)
	if err != nil {
		return api.RepoPermission{}, err
	}
	return api.RepoPermission{Permission: permission}, nil
}
