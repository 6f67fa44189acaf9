package agentworker_test

import (
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
	"github.com/agentrun/agentrun/tools/merchanttool"
)

// loadWorkerTools reads the worker's settings from env and loads its tools
// as the worker main does, on a worker with GitHub (a token): one without
// serves none of the built-in agents (nogithub_test.go).
func loadWorkerTools(t *testing.T, env map[string]string) *activities.Activities {
	t.Helper()
	env = maps.Clone(env)
	env["GITHUB_TOKEN"] = "t"
	cfg, err := agentworker.ConfigFromEnv(standalone.Getenv(env))
	require.NoError(t, err)
	acts := &activities.Activities{}
	set, err := agentworker.LoadTools(t.Context(), cfg, acts, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, set.Close()) })
	return acts
}

func TestWorkerWithAMerchantURLServesTheRecommendAgentAndItsTools(t *testing.T) {
	acts := loadWorkerTools(t, map[string]string{"AGENT_MERCHANT_URL": "http://127.0.0.1:9090/"})

	require.NotNil(t, acts.Tools)
	a, err := acts.Tools.Agent(agents.Recommend)
	require.NoError(t, err)
	require.Equal(t, agents.TargetRecommendation, a.TargetKind)
	for _, name := range []string{merchanttool.SearchMerchants, merchanttool.GetMerchantDetails, merchanttool.GetCoupons, agents.SaveRecommendation} {
		_, ok := acts.Tools.Tool(name)
		require.True(t, ok, name)
	}
	_, err = acts.Tools.Agent(agents.PRReview)
	require.NoError(t, err, "the built-in agents stay")
}

func TestWorkerWithoutAMerchantURLServesNoRecommendAgent(t *testing.T) {
	acts := loadWorkerTools(t, map[string]string{})

	require.Nil(t, acts.Tools, "registration's default: the built-in registry")
	_, err := agents.MustBuiltin(nil).Agent(agents.Recommend)
	require.Error(t, err)
}

func TestWorkerWithAMerchantURLAndAToolsFileServesBoth(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"httpTools":[{"name":"create_ticket","baseUrl":"https://tickets.example.com",
		"allowedPaths":["/tickets"],"agents":[{"name":"pr-review"}]}]}`), 0o600))
	acts := loadWorkerTools(t, map[string]string{"AGENT_MERCHANT_URL": "http://127.0.0.1:9090", "AGENT_TOOLS_FILE": file})

	_, err := acts.Tools.Agent(agents.Recommend)
	require.NoError(t, err)
	_, ok := acts.Tools.Tool("create_ticket")
	require.True(t, ok)
}

func TestWorkerRefusesABadMerchantURLNamingTheVariable(t *testing.T) {
	for _, v := range []string{"127.0.0.1:9090", "ftp://merchants.example", "http://", "https://shop:s3cret@merchants.example/"} {
		t.Run(v, func(t *testing.T) {
			_, err := agentworker.ConfigFromEnv(standalone.Getenv(map[string]string{"AGENT_MERCHANT_URL": v}))

			require.ErrorContains(t, err, "AGENT_MERCHANT_URL")
			require.NotContains(t, err.Error(), "s3cret")
		})
	}
}
