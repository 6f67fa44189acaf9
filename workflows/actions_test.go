package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model/offline"
	"github.com/agentrun/agentrun/tools"
)

// Every GitHub action, under the same faults: a lost response and a 5xx on
// its write. The effect happens exactly once, the step holds what it made,
// and its result joins the conversation once.

const reviewOnly = "review-only"

// newActionHarness is the harness over the built-in registry plus an agent
// that may only post reviews, over the sandbox.
func newActionHarness(t *testing.T) *harness {
	t.Helper()
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer()}
	reg := agents.MustBuiltin(acts.GitHub)
	require.NoError(t, reg.AddAgent(tools.Agent{Name: reviewOnly, Task: "Review pull request", Tools: []tools.AgentTool{
		{Name: api.ToolGetPullRequest}, {Name: api.ToolListPullRequestFiles}, {Name: api.ToolCreatePullRequestReview, Ask: true},
	}}))
	acts.Tools = reg
	var suite testsuite.WorkflowTestSuite
	return &harness{t: t, env: newRunEnv(&suite, New(reg).AgentRun, acts), sandbox: sandbox}
}

func marked(body string) bool { return strings.Contains(body, "<!-- agent-operation:") }

func TestEveryGitHubActionHappensOnceUnderALostResponseAndA5xx(t *testing.T) {
	type action struct {
		agent, tool, op string
		effects         func(s *ghsandbox.Server) int
	}
	actions := []action{
		{agents.PRReview, api.ToolCreateIssueComment, "create_comment", func(s *ghsandbox.Server) int {
			n := 0
			for _, c := range s.Comments("acme", "widgets", 1) {
				if marked(c.Body) {
					n++
				}
			}
			return n
		}},
		{reviewOnly, api.ToolCreatePullRequestReview, "create_review", func(s *ghsandbox.Server) int {
			n := 0
			for _, r := range s.Reviews("acme", "widgets", 1) {
				if marked(r.Body) {
					n++
				}
			}
			return n
		}},
		{agents.Triage, api.ToolCreateIssue, "create_issue", func(s *ghsandbox.Server) int {
			n := 0
			for _, is := range s.Issues("acme", "widgets") {
				if marked(is.Body) {
					n++
				}
			}
			return n
		}},
		{agents.Triage, api.ToolAddLabels, "add_labels", func(s *ghsandbox.Server) int {
			return len(s.Labels("acme", "widgets", 1))
		}},
	}
	faults := []ghsandbox.Fault{{Mode: "drop_response"}, {Mode: "status", Status: 502}}
	for _, a := range actions {
		for _, f := range faults {
			t.Run(a.tool+"/"+f.Mode, func(t *testing.T) {
				h := newActionHarness(t)
				f.Op = a.op
				h.fault(f)
				h.env.RegisterDelayedCallback(func() {
					if snap := h.snapshot(); snap.PendingAction != nil && snap.PendingAction.State == api.ActionWaiting {
						h.decide(snap.PendingAction.ID, api.DecisionApprove, "alice", "")
					}
				}, time.Minute)
				in := demoInput()
				in.Agent = a.agent
				h.env.ExecuteWorkflow(api.WorkflowName, in)
				require.True(t, h.env.IsWorkflowCompleted())
				require.NoError(t, h.env.GetWorkflowError())

				snap := h.snapshot()
				require.Equal(t, api.RunCompleted, snap.Run.Status)
				var st *api.AgentStep
				for i := range snap.Steps {
					if snap.Steps[i].Type == api.StepToolCall && snap.Steps[i].ToolName == a.tool {
						st = &snap.Steps[i]
					}
				}
				require.NotNil(t, st, "the model called %s", a.tool)
				require.Equal(t, api.StepSucceeded, st.Status, st.Error)
				require.NotEmpty(t, st.ExternalResourceID, "the step holds what it made")
				if a.tool == api.ToolAddLabels {
					require.Equal(t, st.ExternalResourceID, strings.Join(h.sandbox.Labels("acme", "widgets", 1), ","))
				} else {
					require.Equal(t, 1, a.effects(h.sandbox), "exactly one %s", a.tool)
				}
				results := 0
				for _, m := range h.conversation(0) {
					if m.Role == api.RoleTool && m.ToolCallID == st.CallID {
						results++
					}
				}
				require.Equal(t, 1, results, "the result joined the conversation once")
				requireLegalHistory(t, h.events())
			})
		}
	}
}
