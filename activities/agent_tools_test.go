package activities

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
)

// offeredModel keeps the tools it was offered.
type offeredModel struct {
	offered []api.ToolSpec
	calls   int
}

func (m *offeredModel) Next(_ context.Context, _ []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	m.calls++
	m.offered = tools
	return api.ModelDecision{Final: "done"}, nil
}

func TestModelNextOffersTheNamedAgentsToolsFromTheWorkersRegistry(t *testing.T) {
	reg := agents.MustBuiltin(nil)
	for _, name := range []string{agents.PRReview, agents.Triage} {
		m := &offeredModel{}
		acts := &Activities{Model: m, Tools: reg}
		// Tools the input carries beside an agent's name are not what the
		// agent was given: the registry's are.
		stale := []api.ToolSpec{{Name: "delete_repository", SideEffect: true}}
		_, err := acts.ModelNext(context.Background(), api.ModelInput{Conversation: runStart(), Agent: name, Tools: stale})
		require.NoError(t, err)
		agent, err := reg.Agent(name)
		require.NoError(t, err)
		require.Equal(t, reg.Specs(agent), m.offered, name)
		require.NotEmpty(t, m.offered, name)
	}
}

func TestModelNextForAnAgentTheWorkerDoesNotServeNeverAsksTheModel(t *testing.T) {
	m := &offeredModel{}
	acts := &Activities{Model: m, Tools: agents.MustBuiltin(nil)}
	_, err := acts.ModelNext(context.Background(), api.ModelInput{Conversation: runStart(), Agent: "no-such-agent"})
	require.ErrorContains(t, err, `unknown agent "no-such-agent"`)
	require.Zero(t, m.calls)
}

func TestModelNextWithoutAnAgentOffersTheInputsTools(t *testing.T) {
	m := &offeredModel{}
	acts := &Activities{Model: m, Tools: agents.MustBuiltin(nil)}
	own := []api.ToolSpec{{Name: api.ToolGetPullRequest}}
	_, err := acts.ModelNext(context.Background(), api.ModelInput{Conversation: runStart(), Tools: own})
	require.NoError(t, err)
	require.Equal(t, own, m.offered)
}
