package registration_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/registration"
	"github.com/agentrun/agentrun/tools"
)

// recorder is a worker.Registry that keeps what was registered. Only the two
// registrations Register may make are implemented: any other one panics on
// the nil embedded interface, so a registration the worker main does not
// make fails the test.
type recorder struct {
	worker.Registry
	workflows  []workflow.RegisterOptions
	activities []any
}

func (r *recorder) RegisterWorkflowWithOptions(_ any, opts workflow.RegisterOptions) {
	r.workflows = append(r.workflows, opts)
}

func (r *recorder) RegisterActivity(a any) { r.activities = append(r.activities, a) }

func TestRegisterPutsThePinnedWorkflowAndTheHoldsUnderTheirWireNamesAndTheActivities(t *testing.T) {
	var rec recorder
	acts := &activities.Activities{}

	registration.Register(&rec, acts)

	require.Equal(t, []workflow.RegisterOptions{{
		Name: api.WorkflowName, VersioningBehavior: workflow.VersioningBehaviorPinned,
	}, {
		Name: api.HoldsWorkflowName, VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade,
	}}, rec.workflows, "runs, named as clients start them, pinned to the build that started each; the long-lived holds workflow moving to each new build")
	require.Len(t, rec.activities, 1)
	require.Same(t, acts, rec.activities[0], "the activities registered are the caller's, with its GitHub and model")
}

func TestRegisterWithoutARegistryServesTheBuiltInAgents(t *testing.T) {
	acts := &activities.Activities{}

	registration.Register(&recorder{}, acts)

	require.NotNil(t, acts.Tools)
	for _, name := range []string{agents.PRReview, agents.Triage} {
		_, err := acts.Tools.Agent(name)
		require.NoError(t, err, "the built-in agent %s", name)
	}
	_, isAction := acts.Tools.Action(api.ToolCreateIssueComment)
	require.True(t, isAction)
}

// stamp is a user's own action; it counts its effects by operationKey.
type stamp struct {
	mu      sync.Mutex
	effects map[string]int
}

func (*stamp) Spec() api.ToolSpec {
	return api.ToolSpec{Name: "stamp", Description: "Stamp the pull request.", SideEffect: true,
		Parameters: json.RawMessage(`{"type":"object","properties":{"word":{"type":"string","minLength":1}},"required":["word"],"additionalProperties":false}`)}
}

func (*stamp) Preview(c tools.Call) (string, error) { return "stamp " + string(c.Args), nil }

func (*stamp) Touches(c tools.Call) (string, error) { return c.Target.Owner + "/" + c.Target.Repo, nil }

func (s *stamp) Execute(_ context.Context, c tools.Call) (api.ToolOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.effects[c.OperationKey]++
	return api.ToolOutput{Content: json.RawMessage(`{"stamped":true}`), ExternalID: "stamp-1"}, nil
}

func (s *stamp) Reconcile(_ context.Context, c tools.Call) (api.ToolReconciliation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.effects[c.OperationKey] > 0 {
		return api.ToolReconciliation{Outcome: api.ReconcileFound, Output: api.ToolOutput{ExternalID: "stamp-1"}}, nil
	}
	return api.ToolReconciliation{Outcome: api.ReconcileNotCreated}, nil
}

// stampOnce asks for one stamp, then answers.
type stampOnce struct{}

func (stampOnce) Next(_ context.Context, conv []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	for _, m := range conv {
		if m.Role == api.RoleTool {
			return api.ModelDecision{Final: "stamped: " + m.Content}, nil
		}
	}
	return api.ModelDecision{ToolCalls: []api.ToolCall{{ID: "s", Name: "stamp", Arguments: json.RawMessage(`{"word":"ok"}`)}}}, nil
}

func TestRegisterRunsTheCallersOwnAgentAndToolInBothWorkflowAndActivities(t *testing.T) {
	s := &stamp{effects: map[string]int{}}
	reg := tools.NewRegistry()
	require.NoError(t, reg.Add(s, tools.NeverAsk))
	require.NoError(t, reg.AddAgent(tools.Agent{Name: "stamper", Tools: []tools.AgentTool{{Name: "stamp"}}}))
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: "run-registration"})

	registration.Register(env, &activities.Activities{Tools: reg, Model: stampOnce{}})
	env.ExecuteWorkflow(api.WorkflowName, api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol",
		Agent: "stamper", InlineConversationBytes: -1})

	require.True(t, env.IsWorkflowCompleted())
	require.NoError(t, env.GetWorkflowError(), "the built-in registry knows no agent stamper")
	var res api.RunResult
	require.NoError(t, env.GetWorkflowResult(&res))
	require.Equal(t, api.RunCompleted, res.Status)
	require.Equal(t, map[string]int{"run-registration:2": 1}, s.effects,
		"the activities ran the caller's tool, once, under the operationKey the workflow recorded")
}
