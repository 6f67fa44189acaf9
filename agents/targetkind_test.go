package agents_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// The starter and the approval server refuse a mismatched start without the
// registry, from api's list of the built-in agents' kinds: it must be the
// kind each built-in agent declares.
func TestEveryBuiltinAgentsKindIsTheOneTheStartersCheckKnows(t *testing.T) {
	reg := agents.MustBuiltin(nil)
	pr, err := api.ParseTarget("acme/widgets", 1)
	require.NoError(t, err)
	ticket, err := api.NewTarget("support_queue", map[string]string{"queue": "support"})
	require.NoError(t, err)
	for _, a := range reg.Agents() {
		require.Equal(t, api.TargetPullRequest, a.TargetKind, a.Name)
		require.NoError(t, api.CheckAgentKind(a.Name, pr), a.Name)
		require.ErrorContains(t, api.CheckAgentKind(a.Name, ticket),
			"agent "+a.Name+" takes a github_pull_request target, not a support_queue one")
	}
}

func TestAnAgentDeclaringAnUnsafeTargetKindIsRefused(t *testing.T) {
	_, err := agents.BuiltinWith(nil, agents.Extension{Agents: []tools.Agent{{Name: "tickets", TargetKind: "Support Queue"}}})
	require.ErrorContains(t, err, `target kind "Support Queue"`)
}
