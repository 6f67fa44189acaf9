package agents_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

func TestARegistryWithoutGitHubServesTheRecommenderAndNoGitHubToolOrAgent(t *testing.T) {
	ext, err := agents.Recommender("http://merchants.example", nil)
	require.NoError(t, err)
	reg, err := agents.WithoutGitHub(ext)
	require.NoError(t, err)
	var names []string
	for _, a := range reg.Agents() {
		names = append(names, a.Name)
	}
	require.Equal(t, []string{agents.Recommend}, names)
	for _, name := range []string{api.ToolGetPullRequest, api.ToolListPullRequestFiles, api.ToolCreateIssueComment,
		api.ToolCreatePullRequestReview, api.ToolAddLabels, api.ToolCreateIssue} {
		_, ok := reg.Tool(name)
		require.False(t, ok, "%s is served without GitHub", name)
	}
}

func TestARegistryWithoutGitHubRefusesAnAgentOrGrantThatNeedsGitHubNamingIt(t *testing.T) {
	ext, err := agents.Recommender("http://merchants.example", nil)
	require.NoError(t, err)
	reads := ext
	reads.Agents = append(reads.Agents, tools.Agent{Name: "ops", Tools: []tools.AgentTool{{Name: api.ToolGetPullRequest}}})
	_, err = agents.WithoutGitHub(reads)
	require.ErrorIs(t, err, agents.ErrNeedsGitHub)
	require.ErrorContains(t, err, "agent ops uses the GitHub tool get_pull_request")
	require.ErrorContains(t, err, "GITHUB_TOKEN")

	granted := ext
	granted.Grants = []agents.Grant{{Agent: agents.Triage, Tool: tools.AgentTool{Name: agents.SaveRecommendation}}}
	_, err = agents.WithoutGitHub(granted)
	require.True(t, errors.Is(err, agents.ErrNeedsGitHub) && strings.Contains(err.Error(), "built-in agent triage"), "%v", err)

	_, err = agents.WithoutGitHub()
	require.ErrorContains(t, err, "no agent to serve")
}
