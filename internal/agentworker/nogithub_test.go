package agentworker_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/startup"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// loadWithoutGitHub builds a worker's activities and tools from env, which
// sets no GitHub variable, as the worker main does.
func loadWithoutGitHub(t *testing.T, env map[string]string) (*activities.Activities, error) {
	t.Helper()
	cfg, err := agentworker.ConfigFromEnv(standalone.Getenv(env))
	require.NoError(t, err)
	require.False(t, cfg.HasGitHub())
	acts, err := agentworker.NewActivities(cfg)
	require.NoError(t, err)
	set, err := agentworker.LoadTools(t.Context(), cfg, acts, nil)
	if err == nil {
		t.Cleanup(func() { require.NoError(t, set.Close()) })
	}
	return acts, err
}

func TestAWorkerWithNoGitHubVariableServesTheRecommenderAloneWithoutAGitHubClient(t *testing.T) {
	acts, err := loadWithoutGitHub(t, map[string]string{"AGENT_MERCHANT_URL": "http://127.0.0.1:9090"})
	require.NoError(t, err)

	require.Nil(t, acts.GitHub, "no client: a permission check says the worker has no GitHub")
	var names []string
	for _, a := range acts.Tools.Agents() {
		names = append(names, a.Name)
	}
	require.Equal(t, []string{agents.Recommend}, names)
	_, ok := acts.Tools.Tool(api.ToolCreateIssueComment)
	require.False(t, ok, "no GitHub tool is served")
}

func TestAWorkerWithNoGitHubVariableAndNoAgentOfItsOwnRefusesToStartSayingWhatToSet(t *testing.T) {
	_, err := loadWithoutGitHub(t, map[string]string{})

	require.ErrorIs(t, err, agentworker.ErrNoGitHub)
	require.Equal(t, 2, startup.ExitCode(err), "a configuration error")
	for _, says := range []string{"GITHUB_TOKEN", "AGENT_TOOLS_FILE", "AGENT_MERCHANT_URL", "pr-review"} {
		require.ErrorContains(t, err, says)
	}
}

func TestAToolsFileAgentNamingAGitHubToolOnAWorkerWithoutGitHubStopsStartUpNamingIt(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"httpTools":[{"name":"create_ticket","baseUrl":"https://tickets.example.com",
		"allowedPaths":["/tickets"],"agents":[{"name":"ops"}]}],"agents":[{"name":"ops","systemPrompt":"You file tickets.",
		"task":"File the ticket of","tools":["get_pull_request"]}]}`), 0o600))

	_, err := loadWithoutGitHub(t, map[string]string{"AGENT_TOOLS_FILE": file})

	require.ErrorIs(t, err, agents.ErrNeedsGitHub)
	require.Equal(t, 2, startup.ExitCode(err))
	require.ErrorContains(t, err, "tools file "+file)
	require.ErrorContains(t, err, "agent ops uses the GitHub tool get_pull_request")
	require.ErrorContains(t, err, "GITHUB_TOKEN")
}

func TestAToolsFileOfAgentsWithoutGitHubToolsServesThemOnAWorkerWithoutGitHub(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"httpTools":[{"name":"create_ticket","baseUrl":"https://tickets.example.com",
		"allowedPaths":["/tickets"],"agents":[{"name":"ops"}]}],"agents":[{"name":"ops","systemPrompt":"You file tickets.",
		"task":"File the ticket of","tools":[]}]}`), 0o600))

	acts, err := loadWithoutGitHub(t, map[string]string{"AGENT_TOOLS_FILE": file})
	require.NoError(t, err)

	_, err = acts.Tools.Agent("ops")
	require.NoError(t, err)
	_, err = acts.Tools.Agent(agents.PRReview)
	require.Error(t, err, "the built-in agents need GitHub")
}
