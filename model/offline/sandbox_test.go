package offline_test

import (
	"encoding/json"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
)

// sandboxReads answers the two read tools for a pull request of the default
// fixture the way GitHub does: a real go-github client over HTTP against the
// sandbox, so the patches and counts are the ones a demo run reads.
func sandboxReads(t *testing.T, number int) (pr, files string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(ghsandbox.New(ghsandbox.DefaultFixture()))
	srv.Listener.Close()
	srv.Listener = testkit.Listen(t)
	srv.Start()
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	ctx := t.Context()
	p, _, err := gh.PullRequests.Get(ctx, "acme", "widgets", number)
	require.NoError(t, err)
	listed, _, err := gh.PullRequests.ListFiles(ctx, "acme", "widgets", number, nil)
	require.NoError(t, err)
	out := make([]api.PullRequestFile, len(listed))
	for i, f := range listed {
		out[i] = api.PullRequestFile{Filename: f.GetFilename(), Status: f.GetStatus(),
			Additions: f.GetAdditions(), Deletions: f.GetDeletions(), Patch: f.GetPatch()}
	}
	prJSON, err := json.Marshal(api.PullRequest{Number: p.GetNumber(), Title: p.GetTitle(), Body: p.GetBody(),
		Author: p.GetUser().GetLogin(), State: p.GetState(), Additions: p.GetAdditions(), Deletions: p.GetDeletions(),
		ChangedFiles: p.GetChangedFiles(), HTMLURL: p.GetHTMLURL()})
	require.NoError(t, err)
	filesJSON, err := json.Marshal(out)
	require.NoError(t, err)
	return string(prJSON), string(filesJSON)
}

func TestTriageOfTheDemoPullRequest(t *testing.T) {
	prJSON, filesJSON := sandboxReads(t, 1)
	tools := offline.OfferedTools(t, offline.TriageTools...)
	conversation := []api.Message{
		{Role: api.RoleSystem, Content: "You triage pull requests."},
		{Role: api.RoleUser, Content: "Triage pull request acme/widgets#1."},
	}
	next := func() api.ModelDecision {
		d, err := offline.NewReviewer().Next(t.Context(), conversation, tools)
		require.NoError(t, err)
		offline.RequireValidCalls(t, tools, conversation, d)
		conversation = append(conversation, api.Message{Role: api.RoleAssistant, Content: d.Final, ToolCalls: d.ToolCalls})
		return d
	}
	answer := func(call api.ToolCall, content string) {
		conversation = append(conversation, api.Message{Role: api.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: content})
	}

	reads := next()
	require.Len(t, reads.ToolCalls, 2)
	answer(reads.ToolCalls[0], prJSON)
	answer(reads.ToolCalls[1], filesJSON)
	proposal := next()
	require.Len(t, proposal.ToolCalls, 2, "labels, and one issue for the one TODO")
	answer(proposal.ToolCalls[0], `{"labels":["docs","go"]}`)
	answer(proposal.ToolCalls[1], "rejected by alice: we track this in the roadmap")
	last := next()
	require.Empty(t, last.ToolCalls)
	require.Contains(t, last.Final, "only in part")
	offline.RequireGolden(t, "triage_default", struct {
		Proposal []api.ToolCall `json:"proposal"`
		Final    string         `json:"final"`
	}{proposal.ToolCalls, last.Final})
}
