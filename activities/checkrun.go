package activities

import (
	"context"
	"net/url"

	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// SyncCheckRun makes a run's check run show the state the run wants
// (github.Access.SyncCheckRun), with a link to the run's page when the
// worker knows the approval server's address. The workflow never waits on
// it: a failure is the check's, never the run's.
func (a *Activities) SyncCheckRun(ctx context.Context, want api.CheckRunSync) (api.CheckRunSynced, error) {
	if a.GitHub == nil {
		return api.CheckRunSynced{}, temporal.NewNonRetryableApplicationError(
			"check run: this worker has no GitHub access", api.ErrTypeGitHubRejected, nil)
	}
	if a.RunPageURL != "" {
		page := a.RunPageURL + "/runs/" + url.PathEscape(want.RunID)
		want.DetailsURL = page
		want.Summary += "\n\n[Open the run's page](" + page + ")"
	} else {
		want.Summary += "\n\nRun `" + want.RunID + "` (`starter status " + want.RunID + "`)."
	}
	return a.GitHub.SyncCheckRun(ctx, want)
}
