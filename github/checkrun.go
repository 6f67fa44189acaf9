package github

import (
	"context"
	"fmt"
	"io"

	gogithub "github.com/google/go-github/v62/github"

	"github.com/agentrun/agentrun/api"
)

// SyncCheckRun makes a run's check run show want, and returns which check
// run that is. Without an ID it first looks for the run's own: the check
// runs of that name on the commit, all of them (filter=all: GitHub's
// default shows only the newest of a name, which may be another run's),
// whose external_id is the run ID. Only when none exists is one created, so
// that a create whose answer was lost, retried, leaves one check run: the
// run ID is the check run's natural key, as the operation marker is a
// comment's.
func (a *Access) SyncCheckRun(ctx context.Context, want api.CheckRunSync) (api.CheckRunSynced, error) {
	t, err := api.ParseTarget(want.Repo, want.PullNumber)
	if err != nil {
		return api.CheckRunSynced{}, err
	}
	op := fmt.Sprintf("check run %s on %s#%d", want.Name, want.Repo, want.PullNumber)
	gh, err := a.ClientFor(op, t)
	if err != nil {
		return api.CheckRunSynced{}, err
	}
	sha := want.HeadSHA
	if sha == "" {
		pr, _, err := gh.PullRequests.Get(ctx, t.Owner, t.Repo, want.PullNumber)
		if err != nil {
			return api.CheckRunSynced{}, ClassifyError(op+": read the pull request's head", err)
		}
		sha = pr.GetHead().GetSHA()
	}
	out := api.CheckRunSynced{CheckRunID: want.CheckRunID, HeadSHA: sha}
	if out.CheckRunID == 0 {
		id, err := findCheckRun(ctx, gh, t, sha, want.Name, want.RunID)
		if err != nil {
			return api.CheckRunSynced{}, ClassifyError(op+": look for the run's check run", err)
		}
		out.CheckRunID, out.Found = id, id != 0
	}
	if out.CheckRunID == 0 {
		opts := gogithub.CreateCheckRunOptions{
			Name: want.Name, HeadSHA: sha, ExternalID: &want.RunID,
			Status: &want.Status, Output: checkOutput(want), Actions: checkActions(want),
		}
		if want.DetailsURL != "" {
			opts.DetailsURL = &want.DetailsURL
		}
		if want.Conclusion != "" {
			opts.Conclusion = &want.Conclusion
		}
		created, _, err := gh.Checks.CreateCheckRun(ctx, t.Owner, t.Repo, opts)
		if err != nil {
			return api.CheckRunSynced{}, ClassifyError(op+": create", err)
		}
		out.CheckRunID = created.GetID()
		return out, nil
	}
	if err := updateCheckRun(ctx, gh, t, out.CheckRunID, want); err != nil {
		return api.CheckRunSynced{}, ClassifyError(op+": update", err)
	}
	return out, nil
}

// checkRunUpdate is the body of an update. go-github's own options leave
// out an empty actions list, which is how GitHub is told to take the
// buttons away once nothing waits.
type checkRunUpdate struct {
	Name       string                     `json:"name"`
	DetailsURL string                     `json:"details_url,omitempty"`
	Status     string                     `json:"status,omitempty"`
	Conclusion string                     `json:"conclusion,omitempty"`
	Output     *gogithub.CheckRunOutput   `json:"output"`
	Actions    []*gogithub.CheckRunAction `json:"actions"`
}

func updateCheckRun(ctx context.Context, gh *gogithub.Client, t api.Target, id int64, want api.CheckRunSync) error {
	body := checkRunUpdate{Name: want.Name, DetailsURL: want.DetailsURL, Status: want.Status, Conclusion: want.Conclusion, Output: checkOutput(want), Actions: checkActions(want)}
	if want.Conclusion != "" {
		body.Status = "" // a conclusion completes it
	}
	req, err := gh.NewRequest("PATCH", fmt.Sprintf("repos/%s/%s/check-runs/%d", t.Owner, t.Repo, id), body)
	if err != nil {
		return err
	}
	// Read to its end: an answer left unread closes its connection, and
	// the next request opens another.
	_, err = gh.Do(ctx, req, io.Discard)
	return err
}

// findCheckRun is the ID of the check run named name on sha whose
// external_id is runID, or 0.
func findCheckRun(ctx context.Context, gh *gogithub.Client, t api.Target, sha, name, runID string) (int64, error) {
	all := "all"
	opts := &gogithub.ListCheckRunsOptions{CheckName: &name, Filter: &all, ListOptions: gogithub.ListOptions{PerPage: 100}}
	for {
		page, resp, err := gh.Checks.ListCheckRunsForRef(ctx, t.Owner, t.Repo, sha, opts)
		if err != nil {
			return 0, err
		}
		for _, c := range page.CheckRuns {
			if c.GetExternalID() == runID && c.GetName() == name {
				return c.GetID(), nil
			}
		}
		if resp.NextPage == 0 {
			return 0, nil
		}
		opts.Page = resp.NextPage
	}
}

func checkOutput(want api.CheckRunSync) *gogithub.CheckRunOutput {
	return &gogithub.CheckRunOutput{Title: &want.Title, Summary: &want.Summary}
}

// checkActions are the buttons; an empty list (not nil) takes earlier
// buttons away.
func checkActions(want api.CheckRunSync) []*gogithub.CheckRunAction {
	out := []*gogithub.CheckRunAction{}
	for _, b := range want.Buttons {
		out = append(out, &gogithub.CheckRunAction{Label: b.Label, Description: b.Description, Identifier: b.Identifier})
	}
	return out
}
