package agents_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// lookup is a read a worker adds.
type lookup struct{ name string }

func (l lookup) Spec() api.ToolSpec {
	return api.ToolSpec{Name: l.name, Description: "reads", Parameters: json.RawMessage(`{"type":"object"}`)}
}

func (lookup) Execute(context.Context, tools.Call) (api.ToolOutput, error) {
	return api.ToolOutput{}, nil
}

func names(a tools.Agent) []string {
	var out []string
	for _, t := range a.Tools {
		out = append(out, t.Name)
	}
	return out
}

func TestBuiltinWithGrantsExtendABuiltInAgentAndLeaveTheOthersAsBuilt(t *testing.T) {
	plain := agents.MustBuiltin(nil)
	review, err := plain.Agent(agents.PRReview)
	require.NoError(t, err)

	r, err := agents.BuiltinWith(nil, agents.Extension{
		Tools:  []agents.ExtraTool{{Tool: lookup{"kv__lookup"}, Gate: tools.NeverAsk}},
		Grants: []agents.Grant{{Agent: agents.PRReview, Tool: tools.AgentTool{Name: "kv__lookup"}}},
	})
	require.NoError(t, err)

	extended, err := r.Agent(agents.PRReview)
	require.NoError(t, err)
	require.Equal(t, append(names(review), "kv__lookup"), names(extended), "the grant comes after the agent's own tools")
	triage, err := r.Agent(agents.Triage)
	require.NoError(t, err)
	require.NotContains(t, names(triage), "kv__lookup", "only the named agent gets the tool")
	again, err := agents.MustBuiltin(nil).Agent(agents.PRReview)
	require.NoError(t, err)
	require.Equal(t, names(review), names(again), "extending one registry never changes the built-in definition")
}

func TestBuiltinWithAddsAnAgentOverBuiltInAndExtraToolsWithItsGrants(t *testing.T) {
	r, err := agents.BuiltinWith(nil, agents.Extension{
		Tools:  []agents.ExtraTool{{Tool: lookup{"kv__lookup"}, Gate: tools.NeverAsk}},
		Agents: []tools.Agent{{Name: "ops", SystemPrompt: "p", Task: "t", Tools: []tools.AgentTool{{Name: api.ToolGetPullRequest}}}},
	}, agents.Extension{Grants: []agents.Grant{{Agent: "ops", Tool: tools.AgentTool{Name: "kv__lookup"}}}})
	require.NoError(t, err)

	ops, err := r.Agent("ops")
	require.NoError(t, err)
	require.Equal(t, []string{api.ToolGetPullRequest, "kv__lookup"}, names(ops))
}

func TestBuiltinWithRefusesWhatCollidesOrIsUnknown(t *testing.T) {
	for name, ext := range map[string]agents.Extension{
		"a tool named like a built-in": {Tools: []agents.ExtraTool{{Tool: lookup{api.ToolGetPullRequest}, Gate: tools.NeverAsk}}},
		"an extra tool twice": {Tools: []agents.ExtraTool{
			{Tool: lookup{"kv__lookup"}, Gate: tools.NeverAsk}, {Tool: lookup{"kv__lookup"}, Gate: tools.NeverAsk}}},
		"an agent named like a built-in": {Agents: []tools.Agent{{Name: agents.Triage}}},
		"a grant to an unknown agent":    {Tools: []agents.ExtraTool{{Tool: lookup{"kv__lookup"}, Gate: tools.NeverAsk}}, Grants: []agents.Grant{{Agent: "nobody", Tool: tools.AgentTool{Name: "kv__lookup"}}}},
		"a grant of an unknown tool":     {Grants: []agents.Grant{{Agent: agents.PRReview, Tool: tools.AgentTool{Name: "kv__nothing"}}}},
		"a grant of a tool it has":       {Grants: []agents.Grant{{Agent: agents.PRReview, Tool: tools.AgentTool{Name: api.ToolGetPullRequest}}}},
		"an agent over an unknown tool":  {Agents: []tools.Agent{{Name: "ops", Tools: []tools.AgentTool{{Name: "kv__nothing"}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := agents.BuiltinWith(nil, ext)
			require.Error(t, err)
			require.Nil(t, r)
		})
	}
}
