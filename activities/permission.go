package activities

import (
	"context"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
)

// CheckRepoPermission asks GitHub for a person's permission on a
// repository. The workflow runs it for every decision on a run without
// approvers, so that the check is in the run's history whichever channel the
// decision came through.
func (a *Activities) CheckRepoPermission(ctx context.Context, in api.RepoPermissionInput) (api.RepoPermission, error) {
	gh, err := a.githubClient()
	if err != nil {
		return api.RepoPermission{}, err
	}
	permission, err := ghapi.PermissionOf(ctx, gh, in.Owner, in.Repo, in.Login)
	if err != nil {
		return api.RepoPermission{}, err
	}
	return api.RepoPermission{Permission: permission}, nil
}
