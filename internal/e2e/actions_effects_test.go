package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-github/v62/github"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// pullsFixture is the default fixture with its PR #1 repeated as PRs
// 1..n, so that each case of a table acts on a pull request of its own:
// labels, unlike marked comments, cannot tell which run added them.
func pullsFixture(t *testing.T, n int) string {
	t.Helper()
	fx := ghsandbox.DefaultFixture()
	repo := &fx.Repos[0]
	first := repo.Pulls[0]
	repo.Pulls = nil
	for i := 1; i <= n; i++ {
		pull := first
		pull.Number = i
		repo.Pulls = append(repo.Pulls, pull)
	}
	data, err := json.Marshal(fx)
	if err != nil {
		t.Fatalf("encode the fixture: %v", err)
	}
	path := filepath.Join(t.TempDir(), "fixture.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatalf("write the fixture: %v", err)
	}
	return path
}

// runsOwn keeps the IDs of the bodies that carry one of runID's operation markers.
func runsOwn(runID string, bodies map[string]string) []string {
	var ids []string
	for id, body := range bodies {
		if key, ok := OperationKeyOf(body); ok && RunIDOfKey(key) == runID {
			ids = append(ids, id)
		}
	}
	return ids
}

// The readers below see GitHub as a user would, through go-github. They are
// list requests like the agent's lookups, so a test reads only once the
// faults it queued on those lookups are spent.

func (s *Sandbox) runComments(t testing.TB, pull int, runID string) []string {
	t.Helper()
	bodies := map[string]string{}
	for _, c := range s.comments(t, pull) {
		bodies[strconv.FormatInt(c.GetID(), 10)] = c.GetBody()
	}
	return runsOwn(runID, bodies)
}

func (s *Sandbox) runReviews(t testing.TB, pull int, runID string) []string {
	t.Helper()
	reviews := listAll(t, fmt.Sprintf("the reviews of #%d", pull), func(ctx context.Context, page github.ListOptions) ([]*github.PullRequestReview, *github.Response, error) {
		return s.gh.PullRequests.ListReviews(ctx, RepoOwner, RepoName, pull, &page)
	})
	bodies := map[string]string{}
	for _, r := range reviews {
		bodies[strconv.FormatInt(r.GetID(), 10)] = r.GetBody()
	}
	return runsOwn(runID, bodies)
}

func (s *Sandbox) runIssues(t testing.TB, _ int, runID string) []string {
	t.Helper()
	bodies := map[string]string{}
	for _, is := range s.issues(t) {
		bodies[strconv.Itoa(is.GetNumber())] = is.GetBody()
	}
	return runsOwn(runID, bodies)
}

// pullLabels is every label pull carries, in GitHub's order.
func (s *Sandbox) pullLabels(t testing.TB, pull int, _ string) []string {
	t.Helper()
	var names []string
	for _, l := range s.labels(t, pull) {
		names = append(names, l.GetName())
	}
	return names
}

// issues is every issue and pull request of the repository.
func (s *Sandbox) issues(t testing.TB) []*github.Issue {
	t.Helper()
	return listAll(t, "the issues of "+PullRepo, func(ctx context.Context, page github.ListOptions) ([]*github.Issue, *github.Response, error) {
		return s.gh.Issues.ListByRepo(ctx, RepoOwner, RepoName, &github.IssueListByRepoOptions{State: "all", ListOptions: page})
	})
}

// labels is every label pull carries, in GitHub's order.
func (s *Sandbox) labels(t testing.TB, pull int) []*github.Label {
	t.Helper()
	return listAll(t, fmt.Sprintf("the labels of #%d", pull), func(ctx context.Context, page github.ListOptions) ([]*github.Label, *github.Response, error) {
		return s.gh.Issues.ListLabelsByIssue(ctx, RepoOwner, RepoName, pull, &page)
	})
}

// toolSteps are the run's steps that called tool.
func toolSteps(s api.RunSnapshot, tool string) []api.AgentStep {
	var out []api.AgentStep
	for _, st := range s.Steps {
		if st.Type == api.StepToolCall && st.ToolName == tool {
			out = append(out, st)
		}
	}
	return out
}

// toolResults counts the tool messages in a run's conversation that answer callID.
func toolResults(t testing.TB, c client.Client, runID, callID string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), queryTimeout)
	defer cancel()
	v, err := c.QueryWorkflow(ctx, runID, "", api.QueryConversation, 0)
	if err != nil {
		t.Fatalf("query the conversation of %s: %v", runID, err)
	}
	var messages []api.Message
	if err := v.Get(&messages); err != nil {
		t.Fatalf("decode the conversation of %s: %v", runID, err)
	}
	n := 0
	for _, m := range messages {
		if m.Role == api.RoleTool && m.ToolCallID == callID {
			n++
		}
	}
	return n
}
