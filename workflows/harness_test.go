package workflows

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

const testRunID = "run-test-1"

// builtin is the workflow over the built-in tools and agents, as a worker
// registers it. Its tools never run here (the activities beside it run
// their own registry's), so they need no GitHub access.
var builtin = New(agents.MustBuiltin(nil))

// acts only names activities for the testsuite's mocks; its fields are
// never read.
var acts *activities.Activities

// harness runs AgentRun in the testsuite with the real activities: the
// offline reviewer and go-github against the sandbox over HTTP.
type harness struct {
	t       *testing.T
	env     *testsuite.TestWorkflowEnvironment
	sandbox *ghsandbox.Server
}

func newHarness(t *testing.T) *harness {
	return newHarnessWith(t, ghsandbox.New(ghsandbox.DefaultFixture()))
}

func newHarnessWith(t *testing.T, sandbox *ghsandbox.Server) *harness {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	return newHarnessOn(t, &suite, sandbox, offline.NewReviewer())
}

// newHarnessOn is the harness in suite's environment (a suite may carry a
// metrics handler), with the GitHub tools on sandbox and m as the model.
func newHarnessOn(t *testing.T, suite *testsuite.WorkflowTestSuite, sandbox *ghsandbox.Server, m model.Model) *harness {
	t.Helper()
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: m}
	return &harness{t: t, env: newRunEnv(suite, builtin.AgentRun, acts), sandbox: sandbox}
}

// sandboxGitHub serves sandbox over real HTTP until the test ends and is the
// GitHub access of a go-github client on it.
func sandboxGitHub(t *testing.T, sandbox *ghsandbox.Server) *github.Access {
	t.Helper()
	srv := httptest.NewServer(sandbox)
	t.Cleanup(srv.Close)
	gh, err := github.NewClient(srv.URL, "")
	require.NoError(t, err)
	return github.NewAccess(gh, nil, "")
}

// newRunEnv is a testsuite environment of suite that runs agentRun (AgentRun,
// or a registry's) under the workflow's registered name and the test run ID,
// with acts as its activities (over the built-in tools when acts names
// none, as registration.Register would make them).
func newRunEnv(suite *testsuite.WorkflowTestSuite, agentRun any, acts *activities.Activities) *testsuite.TestWorkflowEnvironment {
	if acts.Tools == nil {
		acts.Tools = agents.MustBuiltin(acts.GitHub)
	}
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(agentRun, workflow.RegisterOptions{Name: api.WorkflowName})
	env.RegisterActivity(acts)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: testRunID})
	return env
}

func demoInput() api.RunInput {
	// The testsuite's activities cannot query the run, so the conversation
	// always travels inline here; references are tested on a dev server.
	return api.RunInput{Repo: "acme/widgets", PullNumber: 1, UserID: "carol", ToolTimeout: 5 * time.Second, InlineConversationBytes: -1}
}

func (h *harness) run(in api.RunInput) {
	h.env.ExecuteWorkflow(builtin.AgentRun, in)
	require.True(h.t, h.env.IsWorkflowCompleted())
}

func (h *harness) snapshot() api.RunSnapshot {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(api.QueryRun)
	require.NoError(h.t, err)
	var snap api.RunSnapshot
	require.NoError(h.t, v.Get(&snap))
	return snap
}

func (h *harness) conversation(length int) []api.Message {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(api.QueryConversation, length)
	require.NoError(h.t, err)
	var messages []api.Message
	require.NoError(h.t, v.Get(&messages))
	return messages
}

func (h *harness) events() []api.Event {
	h.t.Helper()
	v, err := h.env.QueryWorkflow(api.QueryEvents, int64(0))
	require.NoError(h.t, err)
	var evs []api.Event
	require.NoError(h.t, v.Get(&evs))
	return evs
}

// whenWaiting runs fn once the run waits for approval, with the action ID.
func (h *harness) whenWaiting(after time.Duration, fn func(actionID string)) {
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		require.Equal(h.t, api.RunWaitingForUser, snap.Run.Status, "label %q", snap.Label)
		require.NotNil(h.t, snap.PendingAction)
		fn(snap.PendingAction.ID)
	}, after)
}

func (h *harness) decide(actionID, decision, approver, reason string) {
	h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{
		ActionID: actionID, Decision: decision, Approver: approver, Reason: reason,
	})
}

// comments counts the demo PR's comments that carry an operation marker.
func (h *harness) markedComments() int {
	n := 0
	for _, c := range h.sandbox.Comments("acme", "widgets", 1) {
		if strings.Contains(c.Body, "<!-- agent-operation:") {
			n++
		}
	}
	return n
}

func (h *harness) commentStep(snap api.RunSnapshot) api.AgentStep {
	h.t.Helper()
	for _, st := range snap.Steps {
		if st.ToolName == api.ToolCreateIssueComment && st.Type == api.StepToolCall {
			return st
		}
	}
	h.t.Fatalf("no create_issue_comment step in %+v", snap.Steps)
	return api.AgentStep{}
}

// requireLegalHistory checks that every step and the run only moved along
// the lifecycle tables, and that event sequences have no gap.
func requireLegalHistory(t *testing.T, events []api.Event) {
	t.Helper()
	stepStatus := map[string]api.StepStatus{}
	runStatus := api.RunRunning
	for i, e := range events {
		if i > 0 {
			require.Equal(t, events[i-1].Sequence+1, e.Sequence, "event sequence gap")
		}
		switch e.Type {
		case api.EventStepStatus:
			from, seen := stepStatus[e.StepID]
			to := api.StepStatus(e.Status)
			if seen && from != to {
				require.NoError(t, api.CheckStepTransition(from, to), "step %s", e.StepID)
			}
			stepStatus[e.StepID] = to
		case api.EventRunStatus:
			to := api.RunStatus(e.Status)
			if to != runStatus {
				require.NoError(t, api.CheckRunTransition(runStatus, to))
			}
			runStatus = to
		}
	}
}

func eventsWith(events []api.Event, pred func(api.Event) bool) []api.Event {
	var out []api.Event
	for _, e := range events {
		if pred(e) {
			out = append(out, e)
		}
	}
	return out
}

// runPostingNothing runs in to a clean end that must leave no marked comment
// on the demo PR, and returns the final snapshot for the test's own checks.
func (h *harness) runPostingNothing(in api.RunInput) api.RunSnapshot {
	h.t.Helper()
	h.run(in)
	require.NoError(h.t, h.env.GetWorkflowError())
	require.Equal(h.t, 0, h.markedComments())
	return h.snapshot()
}

// runPostingOnce runs in to a clean end that must leave exactly one marked
// comment, posted by the comment step's attempt-th attempt, and returns that step.
func (h *harness) runPostingOnce(in api.RunInput, attempt int) api.AgentStep {
	h.t.Helper()
	h.run(in)
	require.NoError(h.t, h.env.GetWorkflowError())
	require.Equal(h.t, 1, h.markedComments())
	st := h.commentStep(h.snapshot())
	require.Equal(h.t, api.StepSucceeded, st.Status)
	require.Equal(h.t, attempt, st.Attempt)
	return st
}

// requireExpiredUndecided checks that the action ran out with nobody's
// decision applied, whatever arrived late.
func (h *harness) requireExpiredUndecided(snap api.RunSnapshot) {
	h.t.Helper()
	require.Equal(h.t, api.ActionExpired, snap.PendingAction.State)
	require.Empty(h.t, snap.PendingAction.DecidedBy)
	require.Equal(h.t, api.StepExpired, h.commentStep(snap).Status)
}

// runFailing runs in to a failed workflow whose error says why, and returns
// the error for the test's own checks.
func (h *harness) runFailing(in api.RunInput, why string) error {
	h.t.Helper()
	h.run(in)
	err := h.env.GetWorkflowError()
	require.Error(h.t, err)
	require.Contains(h.t, err.Error(), why)
	return err
}
