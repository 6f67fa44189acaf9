package e2e

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v62/github"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// Both built-in agents on one stack, each approved through the approval
// server's signed API: pr-review posts its one comment, triage labels the
// pull request without asking and files its TODO's issue once approved. Each
// write reaches the sandbox once, and only after its approval.
func TestEndToEndBothAgentsActOnceEachAfterApprovalThroughTheApprovalServer(t *testing.T) {
	s := newStack(t)
	s.StartWorker(t)
	approval := StartApprovalServer(t, s)
	c := s.Client()
	ctx := context.Background()
	require.Empty(t, s.Sandbox.labels(t, PullNum), "the fixture's pull request starts without labels")

	// The starter starts the review (it has no flag for an agent, so a
	// review is what it starts); the triage is started through the run client.
	review := startWithStarter(ctx, t, s)
	const triage = "e2e-agents-triage"
	in := ReviewInput(toolTimeout)
	in.Agent = agents.Triage
	MustStartRun(t, c, s.Queue, triage, in)

	reviewWaits := waitForStarterStatus(t, s, review, api.RunWaitingForUser)
	triageWaits := waitForStarterStatus(t, s, triage, api.RunWaitingForUser)
	require.Len(t, reviewWaits.Actions, 1)
	require.Equal(t, api.ToolCreateIssueComment, reviewWaits.Actions[0].ToolName)
	require.Len(t, triageWaits.Actions, 1, "the labels need no approval; the one TODO's issue does")
	require.Equal(t, api.ToolCreateIssue, triageWaits.Actions[0].ToolName)
	require.Empty(t, s.Sandbox.PostedComments(t), "no comment before its approval")
	require.Empty(t, s.Sandbox.agentIssues(t), "no issue before its approval")
	labels := WaitForRun(t, c, triage, runTimeout, "labels added while the issue waits", func(snap api.RunSnapshot) bool {
		st := toolStep(snap, api.ToolAddLabels)
		return st != nil && st.Status == api.StepSucceeded
	})
	require.Equal(t, api.RunWaitingForUser, labels.Run.Status)

	for _, w := range []api.RunSnapshot{reviewWaits, triageWaits} {
		ans, err := approval.DecideSigned(ctx, w.Run.ID, w.Actions[0].ID, "alice", "e2e-agents-"+w.Run.ID)
		require.NoError(t, err)
		require.Equal(t, http.StatusAccepted, ans.Code, ans.String())
	}

	reviewDone := requireCompletedBy(t, s, review, agents.PRReview)
	triageDone := requireCompletedBy(t, s, triage, agents.Triage)

	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, 1, posted.Total(), "one comment, the review's")
	require.Len(t, posted[review], 1)
	comment := toolStep(reviewDone, api.ToolCreateIssueComment)
	require.Equal(t, strconv.FormatInt(posted[review][0].GetID(), 10), comment.ExternalResourceID)

	labelStep := toolStep(triageDone, api.ToolAddLabels)
	onPull := s.Sandbox.labels(t, PullNum)
	require.NotEmpty(t, onPull)
	require.Equal(t, labelStep.ExternalResourceID, joinNames(onPull), "the labels the step added are the pull request's")
	issues := s.Sandbox.agentIssues(t)
	require.Len(t, issues, 1, "one issue, the triage's")
	issueStep := toolStep(triageDone, api.ToolCreateIssue)
	require.Equal(t, api.StepSucceeded, issueStep.Status, issueStep.Error)
	require.Equal(t, strconv.Itoa(issues[0].GetNumber()), issueStep.ExternalResourceID)
	key, _ := OperationKeyOf(issues[0].GetBody())
	require.Equal(t, issueStep.OperationKey, key, "the issue carries the step's operationKey")

	log := s.Sandbox.Requests(t)
	for op, n := range map[string]int{
		ghsandbox.OpCreateComment: 1, ghsandbox.OpAddLabels: 1, ghsandbox.OpCreateIssue: 1, ghsandbox.OpCreateReview: 0,
	} {
		require.Len(t, RequestsFor(log, op), n, "%s requests reaching the sandbox", op)
	}
}

// requireCompletedBy waits for the run to close and checks, through the
// starter's status, that agent ran it to a complete outcome, its one action
// approved by alice.
func requireCompletedBy(t *testing.T, s *Stack, runID, agent string) api.RunSnapshot {
	t.Helper()
	res := WaitForResult(t, s.Client(), runID, runTimeout)
	require.Equal(t, api.RunCompleted, res.Status)
	snap := waitForStarterStatus(t, s, runID, api.RunCompleted)
	require.Equal(t, agent, snap.Run.Agent)
	require.Equal(t, api.OutcomeComplete, snap.Run.Outcome, Describe(snap))
	require.Len(t, snap.Actions, 1)
	require.Equal(t, api.ActionApproved, snap.Actions[0].State)
	require.Equal(t, "alice", snap.Actions[0].DecidedBy)
	return snap
}

// toolStep is the run's last tool-call step of the tool, or nil.
func toolStep(snap api.RunSnapshot, tool string) *api.AgentStep {
	var found *api.AgentStep
	for i := range snap.Steps {
		if st := &snap.Steps[i]; st.Type == api.StepToolCall && st.ToolName == tool {
			found = st
		}
	}
	return found
}

func joinNames(labels []*github.Label) string {
	names := make([]string, len(labels))
	for i, l := range labels {
		names[i] = l.GetName()
	}
	return strings.Join(names, ",")
}

// agentIssues reads the repository's issues (not its pull requests, which
// GitHub lists with them) that carry an operation marker.
func (s *Sandbox) agentIssues(t testing.TB) []*github.Issue {
	t.Helper()
	var marked []*github.Issue
	for _, is := range s.issues(t) {
		if _, ok := OperationKeyOf(is.GetBody()); ok && !is.IsPullRequest() {
			marked = append(marked, is)
		}
	}
	return marked
}
