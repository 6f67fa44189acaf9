package workflows

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// toldModel records what every model call was told: its conversation's
// system message and its tools' descriptions.
type toldModel struct {
	model.Model
	mu      sync.Mutex
	systems []string
	tools   []string
}

func (m *toldModel) Next(ctx context.Context, conv []api.Message, specs []api.ToolSpec) (api.ModelDecision, error) {
	m.mu.Lock()
	m.systems = append(m.systems, conv[0].Content)
	for _, s := range specs {
		m.tools = append(m.tools, s.Name+": "+s.Description)
	}
	m.mu.Unlock()
	return m.Model.Next(ctx, conv, specs)
}

// A run whose input lifted the agent's gate (an AGENTRUN_AUTO_REVIEW
// entry's :post) posts without asking, and the model is told so: no tool
// description and no prompt says a person approves, as the agent's own
// words would for any other run.
func TestARunThatPostsWithoutAskingTellsTheModelNoPersonApproves(t *testing.T) {
	for _, lifted := range []string{"", "AGENTRUN_AUTO_REVIEW acme/widgets=pr-review:post"} {
		t.Run(strings.Join(strings.Fields("lifted "+lifted), " "), func(t *testing.T) {
			told := &toldModel{Model: offline.NewReviewer()}
			var suite testsuite.WorkflowTestSuite
			h := newHarnessOn(t, &suite, ghsandbox.New(ghsandbox.DefaultFixture()), told)
			in := demoInput()
			in.PostsWithoutAsking = lifted
			if lifted == "" {
				h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionApprove, "alice", "") })
			}
			h.run(in)
			snap := h.snapshot()
			require.Equal(t, api.RunCompleted, snap.Run.Status)
			require.Equal(t, 1, h.markedComments())
			require.NotEmpty(t, told.tools)
			if lifted == "" {
				require.Contains(t, told.systems[0], "a person approves it before it is posted")
				require.Contains(t, strings.Join(told.tools, "\n"), "create_issue_comment: ")
				require.Contains(t, strings.Join(told.tools, "\n"), "A person approves the exact call before it runs.")
				return
			}
			for _, system := range told.systems {
				require.Contains(t, system, "In this run no person approves your actions: each runs at once, as you propose it ("+lifted+").")
			}
			for _, d := range told.tools {
				require.NotContains(t, d, "A person approves", d)
				require.Contains(t, d, "without a person's approval ("+lifted+")", d)
			}
		})
	}
}
