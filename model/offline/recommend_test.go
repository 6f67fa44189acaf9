package offline_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/merchantsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/tools"
)

const recommendAsk = "Recommend a place for recommendation_request budget=150 city=riverside party_size=2.\n" +
	"Goal: somewhere for two to talk, about 150, coupons welcome"

// recommendDialogue drives the offline model through the recommend agent's
// reads against a real sandbox, over the agent's real tools, until it
// proposes the save; it returns that decision and the final answer the
// model gives once the save answered saveResult.
func recommendDialogue(t *testing.T, sandbox *ghsandbox.Server, saveResult string) (api.ModelDecision, string) {
	t.Helper()
	srv := httptest.NewUnstartedServer(sandbox)
	srv.Listener.Close()
	srv.Listener = testkit.Listen(t)
	srv.Start()
	t.Cleanup(srv.Close)
	ext, err := agents.Recommender(srv.URL, nil)
	require.NoError(t, err)
	byName := map[string]tools.Tool{}
	var specs []api.ToolSpec
	for _, add := range ext.Tools {
		byName[add.Tool.Spec().Name] = add.Tool
		specs = append(specs, add.Tool.Spec())
	}
	conv := []api.Message{{Role: api.RoleSystem, Content: "recommend"}, {Role: api.RoleUser, Content: recommendAsk}}
	model := offline.NewReviewer()
	for turn := 0; turn < 10; turn++ {
		d, err := model.Next(context.Background(), conv, specs)
		require.NoError(t, err)
		if d.Final != "" {
			t.Fatalf("final answer before the save: %s", d.Final)
		}
		require.Len(t, d.ToolCalls, 1)
		call := d.ToolCalls[0]
		if call.Name == agents.SaveRecommendation {
			conv = append(conv, api.Message{Role: api.RoleAssistant, ToolCalls: d.ToolCalls},
				api.Message{Role: api.RoleTool, ToolCallID: call.ID, Content: saveResult})
			last, err := model.Next(context.Background(), conv, specs)
			require.NoError(t, err)
			return d, last.Final
		}
		out, err := byName[call.Name].Execute(context.Background(), tools.Call{Args: call.Arguments})
		content := string(out.Content)
		if err != nil {
			content = "failed: " + err.Error() // what the workflow tells the model of an optional read
		}
		conv = append(conv, api.Message{Role: api.RoleAssistant, ToolCalls: d.ToolCalls},
			api.Message{Role: api.RoleTool, ToolCallID: call.ID, Content: content})
	}
	t.Fatal("no save proposed in 10 turns")
	return api.ModelDecision{}, ""
}

func TestRecommendFunnelKeepsSixInBudgetFourWithCouponsAndChoosesThree(t *testing.T) {
	save, answer := recommendDialogue(t, ghsandbox.New(ghsandbox.DefaultFixture()), `{"status":201,"body":{"id":"rec-1"}}`)
	require.Contains(t, answer, "10 candidates → 6 in budget → 4 with coupons → 3 chosen.")
	require.Contains(t, answer, "1. Lantern Tea House (120 for two, quiet, rated 4.6, coupon: 20 off a set for two)")
	require.Contains(t, answer, "2. Quiet Corner Bistro")
	require.Contains(t, answer, "3. Paper Crane Izakaya")
	require.Contains(t, answer, "Saved as recommendation rec-1.")
	require.NotContains(t, answer, "partial")
	require.Contains(t, string(save.ToolCalls[0].Arguments), `"path":"/recommendations"`)
}

func TestRecommendIsTheSameForTheSameReads(t *testing.T) {
	first, a1 := recommendDialogue(t, ghsandbox.New(ghsandbox.DefaultFixture()), `{"status":201,"body":{"id":"rec-1"}}`)
	second, a2 := recommendDialogue(t, ghsandbox.New(ghsandbox.DefaultFixture()), `{"status":201,"body":{"id":"rec-1"}}`)
	require.Equal(t, string(first.ToolCalls[0].Arguments), string(second.ToolCalls[0].Arguments))
	require.Equal(t, a1, a2)
}

func TestRecommendWithCouponsDownChoosesWithoutCouponsAndNamesTheFailedTool(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	require.NoError(t, sandbox.AddFault(ghsandbox.Fault{Op: merchantsandbox.OpGetCoupons, Mode: ghsandbox.ModeStatus, Status: 503, Count: 1}))
	save, answer := recommendDialogue(t, sandbox, `{"status":201,"body":{"id":"rec-1"}}`)
	require.Contains(t, answer, "10 candidates → 6 in budget → 3 chosen.")
	require.Contains(t, answer, "1. Garden Courtyard (160 for two, quiet, rated 4.7)")
	require.Contains(t, answer, "partial: coupons unavailable (tool get_coupons failed: ")
	require.Equal(t, 1, strings.Count(answer, "coupons unavailable"), "the partial line says it once: %s", answer)
	require.NotContains(t, answer, "coupon: ")
	require.Contains(t, string(save.ToolCalls[0].Arguments), `"partial":true`)
}
