package scripted_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/model/scripted"
)

var offered = []api.ToolSpec{{Name: "read_channel"}, {Name: "send_message"}}

type fallback struct{ asked int }

func (f *fallback) Next(context.Context, []api.Message, []api.ToolSpec) (api.ModelDecision, error) {
	f.asked++
	return api.ModelDecision{Final: "the provider's answer"}, nil
}

func TestItCallsTheToolWithTheGoalThenReportsAndStartsAgainOnAFollowUp(t *testing.T) {
	m := scripted.Model{Scripts: []scripted.Script{scripted.Then("send_message", "text")}}
	conv := []api.Message{
		{Role: api.RoleSystem, Content: "You announce."},
		{Role: api.RoleUser, Content: api.OpeningMessage("Announce on", "chat_channel channel=releases", "Version 2.4 is out\nwith notes")},
	}

	d, err := m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Len(t, d.ToolCalls, 1)
	require.Equal(t, "send_message", d.ToolCalls[0].Name)
	require.JSONEq(t, `{"text":"Version 2.4 is out\nwith notes"}`, string(d.ToolCalls[0].Arguments), "the whole goal, newlines and all")
	require.True(t, d.Local)

	conv = append(conv, api.Message{Role: api.RoleAssistant, ToolCalls: d.ToolCalls},
		api.Message{Role: api.RoleTool, ToolCallID: d.ToolCalls[0].ID, Name: "send_message", Content: `{"id":"M-3"}`})
	d, err = m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Empty(t, d.ToolCalls)
	require.Equal(t, "Done.\nsend_message: {\"id\":\"M-3\"}", d.Final)

	conv = append(conv, api.Message{Role: api.RoleAssistant, Content: d.Final},
		api.Message{Role: api.RoleUser, Content: api.FollowUpMessage("Say it in French")})
	d, err = m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Len(t, d.ToolCalls, 1, "a follow-up runs the script again")
	require.JSONEq(t, `{"text":"Say it in French"}`, string(d.ToolCalls[0].Arguments))
	require.NotEqual(t, conv[2].ToolCalls[0].ID, d.ToolCalls[0].ID, "call IDs never repeat in one conversation")
}

func TestAScriptOfSeveralCallsFillsTaskAndGoalAndKeepsOtherValues(t *testing.T) {
	m := scripted.Model{Scripts: []scripted.Script{{Calls: []scripted.Call{
		{Tool: "read_channel", Args: map[string]any{"limit": 5}},
		{Tool: "send_message", Args: map[string]any{"text": "[" + scripted.Task + "] " + scripted.Goal, "silent": true}},
	}}}}
	conv := []api.Message{{Role: api.RoleUser, Content: api.OpeningMessage("Announce on", "chat_channel channel=releases", "v2")}}

	d, err := m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.JSONEq(t, `{"limit":5}`, string(d.ToolCalls[0].Arguments))
	conv = append(conv, api.Message{Role: api.RoleTool, Name: "read_channel", Content: "[]"})
	d, err = m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Equal(t, "send_message", d.ToolCalls[0].Name)
	require.JSONEq(t, `{"text":"[Announce on chat_channel channel=releases.] v2","silent":true}`, string(d.ToolCalls[0].Arguments))
}

func TestAnAgentNoScriptFitsGoesToTheProvidersModel(t *testing.T) {
	other := &fallback{}
	m := scripted.Model{Scripts: []scripted.Script{scripted.Then("create_ticket", "title")}, Otherwise: other}
	conv := []api.Message{{Role: api.RoleUser, Content: "Review pull request acme/widgets#1."}}

	d, err := m.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Equal(t, "the provider's answer", d.Final)
	require.Equal(t, 1, other.asked)

	d, err = scripted.Model{}.Next(t.Context(), conv, offered)
	require.NoError(t, err)
	require.Contains(t, d.Final, "No script")
}

func TestReadUserMessageSplitsTheFirstLineFromTheGoal(t *testing.T) {
	first, goal := api.ReadUserMessage(api.OpeningMessage("Review pull request", "acme/widgets#1", "Goal: twice\nGoal: again"))
	require.Equal(t, "Review pull request acme/widgets#1.", first)
	require.Equal(t, "Goal: twice\nGoal: again", goal)
	first, goal = api.ReadUserMessage(api.OpeningMessage("Triage pull request", "acme/widgets#1", ""))
	require.Equal(t, "Triage pull request acme/widgets#1.", first)
	require.Empty(t, goal)
	first, _ = api.ReadUserMessage(api.FollowUpMessage("more"))
	require.Equal(t, api.FollowUpLine, first)
}
