package workflows

import (
	"encoding/json"
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

const editedBody = "A shorter review, as alice wrote it."

func editedArgs(t *testing.T, fields map[string]any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(fields)
	require.NoError(t, err)
	return raw
}

// approveWithEdit approves the waiting action with args, bound to the
// version the approver saw.
func (h *harness) approveWithEdit(approver string, args json.RawMessage) {
	pa := h.snapshot().PendingAction
	h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{
		ActionID: pa.ID, Decision: api.DecisionApprove, Approver: approver, ArgsHash: pa.ArgsHash, Args: args, RequestID: "edit-1",
	})
}

func (h *harness) ignoredSignals() []string {
	var why []string
	for _, e := range h.events() {
		if e.Type == api.EventSignalIgnored {
			why = append(why, e.Detail)
		}
	}
	return why
}

func TestAnEditedApprovalPostsTheEditedTextOnceUnderALostResponse(t *testing.T) {
	h := newHarness(t)
	h.fault(ghsandbox.Fault{Op: "create_comment", Mode: "drop_response"})
	var proposed api.PendingAction
	h.whenWaiting(time.Minute, func(string) {
		proposed = *h.snapshot().PendingAction
		require.True(t, proposed.Editable, "a comment may be edited by default")
		require.JSONEq(t, string(editedArgs(t, map[string]any{"body": proposed.Preview})), string(proposed.Args), "the action shows its args")
		h.approveWithEdit("alice", editedArgs(t, map[string]any{"body": editedBody}))
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	comments := h.sandbox.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1, "the edited comment is posted once, though the first response was lost")
	require.True(t, strings.HasPrefix(comments[0].Body, editedBody), "what is posted is the edit")
	require.NotContains(t, comments[0].Body, "TODO", "nothing of the model's version is posted")

	snap := h.snapshot()
	pa := snap.PendingAction
	require.Equal(t, api.ActionApproved, pa.State)
	require.NotNil(t, pa.Edit)
	require.Equal(t, "alice", pa.Edit.By)
	require.Equal(t, proposed.ArgsHash, pa.Edit.From.ArgsHash, "the model's version is kept")
	require.Equal(t, proposed.Preview, pa.Edit.From.Preview)
	require.Equal(t, editedBody, pa.Preview, "the preview is the edited call's")
	require.Equal(t, api.ToolArgsHash(mustTarget(t), api.ToolCreateIssueComment, editedArgs(t, map[string]any{"body": editedBody})), pa.ArgsHash)

	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, testRunID+":5", st.OperationKey, "the edit runs under the same operationKey")
	require.JSONEq(t, string(editedArgs(t, map[string]any{"target": "acme/widgets#1", "preview": editedBody, "editedBy": "alice"})), string(st.SafeInput),
		"the step shows the call that ran, and who edited it")
	require.Len(t, snap.Outcome.Posted, 1)
	require.Equal(t, "alice", snap.Outcome.Posted[0].EditedBy)
	require.Contains(t, snap.Outcome.Summary, "edited by alice")
	require.Len(t, eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventActionEdited }), 1)

	var result string
	for _, m := range h.conversation(0) {
		if m.Role == api.RoleTool && m.ToolCallID == st.CallID {
			result = m.Content
		}
	}
	require.Contains(t, result, `"editedBy":"alice"`, "the model learns a person edited the action")
	require.Contains(t, snap.Run.Result, "alice edited it before it was posted")
	requireLegalHistory(t, h.events())
}

func TestAnEditThatChangesTheTargetIsRefusedAndTheActionStillWaits(t *testing.T) {
	for name, args := range map[string]map[string]any{
		"another repository":   {"body": editedBody, "repo": "acme/secrets"},
		"another pull request": {"body": editedBody, "pullNumber": 2},
		"not the schema":       {"text": editedBody},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t)
			var preview string
			h.whenWaiting(time.Minute, func(id string) {
				preview = h.snapshot().PendingAction.Preview
				h.approveWithEdit("alice", editedArgs(t, args))
			})
			h.whenWaiting(2*time.Minute, func(id string) {
				require.Equal(t, api.ActionWaiting, h.snapshot().PendingAction.State, "a refused edit decides nothing")
				h.decide(id, api.DecisionApprove, "alice", "")
			})
			h.run(demoInput())
			require.NoError(t, h.env.GetWorkflowError())
			comments := h.sandbox.Comments("acme", "widgets", 1)
			require.Len(t, comments, 1)
			require.True(t, strings.HasPrefix(comments[0].Body, preview), "the model's version, approved later, is what posted")
			require.Nil(t, h.snapshot().PendingAction.Edit)
			ignored := h.ignoredSignals()
			require.Len(t, ignored, 1)
			require.Contains(t, ignored[0], "edit by alice not applied")
		})
	}
}

func TestAnEditIsRefusedForAToolWhoseAgentForbidsEdits(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	acts := &activities.Activities{GitHub: sandboxGitHub(t, sandbox), Model: offline.NewReviewer()}
	reg := agents.MustBuiltin(acts.GitHub)
	require.NoError(t, reg.AddAgent(tools.Agent{Name: "no-edits", Task: "Review pull request", Tools: []tools.AgentTool{
		{Name: api.ToolGetPullRequest}, {Name: api.ToolListPullRequestFiles}, {Name: api.ToolCreateIssueComment, Ask: true, NoEdit: true},
	}}))
	acts.Tools = reg
	var suite testsuite.WorkflowTestSuite
	h := &harness{t: t, env: newRunEnv(&suite, New(reg).AgentRun, acts), sandbox: sandbox}
	h.whenWaiting(time.Minute, func(string) {
		require.False(t, h.snapshot().PendingAction.Editable)
		h.approveWithEdit("alice", editedArgs(t, map[string]any{"body": editedBody}))
	})
	h.whenWaiting(2*time.Minute, func(id string) { h.decide(id, api.DecisionReject, "alice", "no") })
	in := demoInput()
	in.Agent = "no-edits"
	h.env.ExecuteWorkflow(api.WorkflowName, in)
	require.NoError(t, h.env.GetWorkflowError())
	require.Empty(t, h.sandbox.Comments("acme", "widgets", 1))
	ignored := h.ignoredSignals()
	require.Len(t, ignored, 1)
	require.Contains(t, ignored[0], "agent no-edits does not let create_issue_comment be edited")
}

func TestFeedbackLeadsToASecondProposalThatIsApprovedAndPostedOnce(t *testing.T) {
	h := newHarness(t)
	var first api.PendingAction
	h.whenWaiting(time.Minute, func(id string) {
		first = *h.snapshot().PendingAction
		h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{
			ActionID: id, Decision: api.DecisionRespond, Approver: "alice", Reason: "Please make it shorter.", RequestID: "r-1",
		})
	})
	var second api.PendingAction
	h.whenWaiting(2*time.Minute, func(id string) {
		second = *h.snapshot().PendingAction
		require.NotEqual(t, first.ID, id, "the revision is a new action")
		require.Equal(t, 0, h.markedComments(), "the first proposal is never posted")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	comments := h.sandbox.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.True(t, strings.HasPrefix(comments[0].Body, second.Preview))
	require.Contains(t, comments[0].Body, "details left out, as the reviewer asked")
	require.NotContains(t, comments[0].Body, first.Preview, "the first proposal is never posted")

	snap := h.snapshot()
	require.Len(t, snap.Actions, 2)
	require.Equal(t, api.ActionRejected, snap.Actions[0].State)
	require.True(t, snap.Actions[0].Feedback)
	require.Equal(t, "Please make it shorter.", snap.Actions[0].Reason)
	require.Equal(t, api.ActionApproved, snap.Actions[1].State)
	require.Len(t, snap.Outcome.Posted, 1)
	require.Len(t, snap.Outcome.Declined, 1)
	require.True(t, snap.Outcome.Declined[0].Feedback)
	require.Contains(t, snap.Outcome.Summary, "sent back with feedback by alice")
	requireLegalHistory(t, h.events())
}

func TestFeedbackIsBoundedByTheAgentsStepLimit(t *testing.T) {
	h := newHarness(t)
	for i := 1; i <= 3; i++ {
		h.env.RegisterDelayedCallback(func() {
			if pa := h.snapshot().PendingAction; pa != nil && pa.State == api.ActionWaiting {
				h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{
					ActionID: pa.ID, Decision: api.DecisionRespond, Approver: "alice", Reason: "shorter", RequestID: pa.ID,
				})
			}
		}, time.Duration(i)*time.Minute)
	}
	in := demoInput()
	in.MaxSteps = 3
	h.run(in)
	require.Error(t, h.env.GetWorkflowError())
	require.Contains(t, h.snapshot().Run.Error, "reached maxSteps (3)")
	require.Equal(t, 0, h.markedComments())
}

// The rules refuse what a decision may not carry, before anything applies.
func TestDecisionsCarryingWhatTheyMayNotAreRefused(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pa := &api.PendingAction{ID: "act-1", State: api.ActionWaiting, ArgsHash: strings.Repeat("a", 64), ExpiresAt: now.Add(time.Hour)}
	big := json.RawMessage(`{"body":"` + strings.Repeat("x", api.MaxEditArgsBytes) + `"}`)
	for name, tc := range map[string]struct {
		sig  api.ApprovalSignal
		want string
	}{
		"respond without feedback":  {api.ApprovalSignal{Decision: api.DecisionRespond, Approver: "alice"}, "without feedback"},
		"oversized feedback":        {api.ApprovalSignal{Decision: api.DecisionRespond, Approver: "alice", Reason: strings.Repeat("x", api.MaxFeedbackBytes+1)}, "at most 2000"},
		"a reject carrying an edit": {api.ApprovalSignal{Decision: api.DecisionReject, Approver: "alice", Reason: "no", Args: json.RawMessage(`{}`)}, "only an approval may"},
		"oversized edit":            {api.ApprovalSignal{Decision: api.DecisionApprove, Approver: "alice", Args: big}, "at most 16384"},
		"feedback from a stranger":  {api.ApprovalSignal{Decision: api.DecisionRespond, Approver: "mallory", Reason: "shorter"}, "not an approver of this run"},
	} {
		t.Run(name, func(t *testing.T) {
			why, _ := decisionRules{Approvers: []string{"alice"}}.Refuse(pa, tc.sig, now)
			require.Contains(t, why, tc.want)
		})
	}
	for name, sig := range map[string]api.ApprovalSignal{
		"an edit":  {Decision: api.DecisionApprove, Approver: "alice", Args: json.RawMessage(`{"body":"x"}`)},
		"feedback": {Decision: api.DecisionRespond, Approver: "alice", Reason: "shorter"},
	} {
		t.Run("a batch carrying "+name, func(t *testing.T) {
			sig.ActionID, sig.ArgsHash = pa.ID, pa.ArgsHash
			sig.Batch = []api.ActionRef{{ActionID: "act-2", ArgsHash: pa.ArgsHash}}
			_, why := splitBatch(sig, true, "batcher", func(string) *api.PendingAction { return pa })
			require.Contains(t, why, "a batch cannot")
		})
	}
}

func mustTarget(t *testing.T) api.Target {
	t.Helper()
	target, err := api.ParseTarget("acme/widgets", 1)
	require.NoError(t, err)
	return target
}
