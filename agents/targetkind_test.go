package agents_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// The starter and the approval server refuse a mismatched start without the
// registry, from api's list of the agents' kinds: it must be the kind each
// built-in agent, and each agent agentrun ships as an extension (the
// recommender), declares.
func TestEveryShippedAgentsKindIsTheOneTheStartersCheckKnows(t *testing.T) {
	recommender, err := agents.Recommender("http://127.0.0.1:9090", nil)
	require.NoError(t, err)
	reg, err := agents.BuiltinWith(nil, recommender)
	require.NoError(t, err)
	pr, err := api.ParseTarget("acme/widgets", 1)
	require.NoError(t, err)
	ticket, err := api.NewTarget("support_queue", map[string]string{"queue": "support"})
	require.NoError(t, err)
	var kinds []string
	for _, a := range reg.Agents() {
		own := pr
		if a.TargetKind != api.TargetPullRequest {
			own, err = api.NewTarget(a.TargetKind, map[string]string{"city": "riverside"})
			require.NoError(t, err)
		}
		require.NoError(t, api.CheckAgentKind(a.Name, own), a.Name)
		require.ErrorContains(t, api.CheckAgentKind(a.Name, ticket),
			"agent "+a.Name+" takes a "+a.TargetKind+" target, not a support_queue one")
		kinds = append(kinds, a.Name+"="+a.TargetKind)
	}
	require.Contains(t, kinds, agents.Recommend+"="+agents.TargetRecommendation)
}

func TestAnAgentDeclaringAnUnsafeTargetKindIsRefused(t *testing.T) {
	_, err := agents.BuiltinWith(nil, agents.Extension{Agents: []tools.Agent{{Name: "tickets", TargetKind: "Support Queue"}}})
	require.ErrorContains(t, err, `target kind "Support Queue"`)
}
