package workflows

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// cancelledInDoubt runs the demo review with m as its model until its
// comment is made but its answer lost and every look refused, and its
// requester cancels: the run ends cancelled with the comment step
// outcome_unknown. It returns what a follow-up loads of it, as LoadFollowUp
// builds it.
func cancelledInDoubt(t *testing.T, sandbox *ghsandbox.Server, m model.Model) api.FollowUpSource {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	h := newHarnessOn(t, &suite, sandbox, m)
	h.cannotTell()
	h.env.RegisterDelayedCallback(func() { h.cancelAs("carol", "giving up on this one", "c1") }, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())
	snap := h.snapshot()
	require.Equal(t, api.RunCancelled, snap.Run.Status)
	require.Equal(t, api.StepOutcomeUnknown, h.commentStep(snap).Status)
	require.Equal(t, 1, h.markedComments(), "the comment was made; nobody saw it")
	return h.followUpSource()
}

// followUpSource is what LoadFollowUp reads of the harness's ended run.
func (h *harness) followUpSource() api.FollowUpSource {
	snap := h.snapshot()
	require.True(h.t, snap.Run.Status.IsTerminal())
	return api.FollowUpSource{Run: snap.Run, Conversation: h.conversation(0), InDoubt: api.FollowUpInDoubt(snap, snap.Steps)}
}

// requireFoundNotPostedAgain checks how a follow-up that asked for the
// comment in doubt ended: it found the comment under the earlier
// operationKey, put nothing to an approver and posted nothing. It returns
// the follow-up's comment step.
func requireFoundNotPostedAgain(t *testing.T, h *harness) api.AgentStep {
	t.Helper()
	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 1, h.markedComments(), "the comment in doubt was found, not posted again")
	snap := h.snapshot()
	require.Empty(t, snap.Actions, "nothing was put to an approver: nothing new is done")
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, itoa64(h.sandbox.Comments("acme", "widgets", 1)[0].ID), st.ExternalResourceID)
	return st
}

// approveIfAsked approves the follow-up's action if it asks one: an
// approver who approves whatever is put before them.
func (h *harness) approveIfAsked() {
	h.env.RegisterDelayedCallback(func() {
		if snap := h.snapshot(); snap.Run.Status == api.RunWaitingForUser {
			h.decide(snap.PendingAction.ID, api.DecisionApprove, "alice", "")
		}
	}, time.Minute)
}

// requireAnsweredInDoubt checks that the follow-up's conversation answers
// the earlier comment call as maybe posted, naming its operationKey and
// target, never as not run.
func requireAnsweredInDoubt(t *testing.T, conv []api.Message, earlier api.InDoubtAction) {
	t.Helper()
	var answers []string
	for _, m := range conv {
		if m.Role == api.RoleTool && m.ToolCallID == earlier.CallID {
			answers = append(answers, m.Content)
		}
	}
	require.Len(t, answers, 1, "the earlier call is answered once")
	require.True(t, strings.HasPrefix(answers[0], api.InDoubtAnswer), "answer %q", answers[0])
	require.Contains(t, answers[0], "may have been posted on acme/widgets#1")
	require.Contains(t, answers[0], "operationKey "+earlier.OperationKey)
	require.NotContains(t, answers[0], "not run")
}

func TestAFollowUpOfARunWhoseCommentIsInDoubtFindsItAndNeverPostsItAgain(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := cancelledInDoubt(t, sandbox, offline.NewReviewer())
	require.Len(t, first.InDoubt, 1)
	sandbox.ClearFaults() // the listing works again
	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	h.approveIfAsked()

	// No new goal: the model proposes the same comment again.
	h.run(followUpInput(first.Run, "carol", ""))

	st := requireFoundNotPostedAgain(t, h)
	require.Contains(t, string(st.SafeOutput), `"alreadyExisted":true`)
	requireAnsweredInDoubt(t, h.conversation(0), first.InDoubt[0])
	requireLegalHistory(t, h.events())
}

// A comment longer than a step record shows (4 KiB) leaves a record cut
// to its head and its target; one recorded before records kept the target
// names none, so the action in doubt names none. A follow-up whose
// model asks for that comment again still looks for it under the earlier
// operationKey, finds it, and posts nothing.
func TestAFollowUpFindsAnEarlierLongCommentInDoubtThoughItsRecordNamesNoTarget(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	args := fmt.Sprintf(`{"body":%q}`, strings.Repeat("A finding the reviewer explains at length.\n", 120))
	// The first run's model asks for the comment; the follow-up's, reading
	// the same conversation on, asks for it again with the same arguments.
	model := func() *scriptedModel {
		return &scriptedModel{turns: [][]api.ToolCall{
			{call("c1", api.ToolCreateIssueComment, args)},
			{call("c2", api.ToolCreateIssueComment, args)},
		}}
	}
	first := cancelledInDoubt(t, sandbox, model())
	require.Len(t, first.InDoubt, 1)
	require.Equal(t, "acme/widgets#1", first.InDoubt[0].Target, "the step's record was cut short, but keeps its target")
	require.NotEmpty(t, first.InDoubt[0].ArgsHash)
	// A record written before records kept their target names none: the
	// follow-up must still find the comment.
	first.InDoubt[0].Target = ""

	sandbox.ClearFaults()
	h := followUpHarnessOn(t, sandbox, model(), func(string) (api.FollowUpSource, error) { return first, nil })
	h.approveIfAsked()
	h.run(followUpInput(first.Run, "carol", ""))

	requireFoundNotPostedAgain(t, h)
}

func TestAFollowUpWhoseEarlierCommentCannotBeSeenShowsItToTheApprover(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := cancelledInDoubt(t, sandbox, offline.NewReviewer())
	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	var caution string
	h.whenWaiting(time.Minute, func(id string) {
		caution = h.snapshot().PendingAction.Caution
		h.decide(id, api.DecisionReject, "alice", "the first one may be there")
	})

	h.run(followUpInput(first.Run, "carol", "post the review"))

	require.NoError(t, h.env.GetWorkflowError())
	earlier := first.InDoubt[0]
	require.Contains(t, caution, "operationKey "+earlier.OperationKey)
	require.Contains(t, caution, "may have been posted on acme/widgets#1")
	requireAnsweredInDoubt(t, h.conversation(0), earlier)
	require.Equal(t, 1, h.markedComments())
}

func TestAnAbandonedCommentReadsAsMaybePostedNotAsNotRun(t *testing.T) {
	h := newHarness(t)
	h.cannotTell()
	h.env.RegisterDelayedCallback(func() {
		st := h.commentStep(h.snapshot())
		h.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: st.ID, Decision: api.ResolveAbandon, By: "ops"})
	}, time.Hour)
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepFailed, st.Status)
	require.True(t, api.InDoubt(st), "an abandoned action stays in doubt: %q", st.Error)
	for _, m := range h.conversation(0) {
		if m.Role == api.RoleTool && m.ToolCallID == st.CallID {
			require.True(t, strings.HasPrefix(m.Content, api.InDoubtAnswer), "the model reads %q", m.Content)
		}
	}
	require.Contains(t, snap.Run.Result, "may have been posted")
	require.Contains(t, snap.Outcome.Summary, "a comment may have been posted (operationKey "+st.OperationKey+")")
	require.NotContains(t, snap.Outcome.Summary, "Nothing posted on")
}

func TestAFollowUpOfARunThatFailedAtSetupOpensWithItsAgentsPromptAndTask(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	failed := newHarnessWith(t, sandbox)
	in := demoInput()
	in.Goal = strings.Repeat("x", api.MaxGoalBytes+1)
	failed.runFailing(in, "goal must be valid UTF-8")
	first := api.FollowUpSource{Run: failed.snapshot().Run, Conversation: failed.conversation(0)}
	require.Empty(t, first.Conversation, "the run failed before its conversation opened")

	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	h.approveWhenWaiting()
	h.run(followUpInput(first.Run, "carol", "review it after all"))

	require.NoError(t, h.env.GetWorkflowError())
	conv := h.conversation(0)
	require.Equal(t, api.RoleSystem, conv[0].Role)
	require.NotEmpty(t, conv[0].Content, "the agent's system prompt")
	require.Equal(t, api.RoleUser, conv[1].Role)
	require.Contains(t, conv[1].Content, "acme/widgets#1", "the agent's task names the target")
	require.Contains(t, conv[1].Content, "Goal: review it after all")
	require.Equal(t, 1, h.markedComments(), "the follow-up ran the review")
}

// askedModel proposes the comment args when the last message is the
// person's asking to "post it", and otherwise answers with nothing to do.
type askedModel struct{ args string }

func (m askedModel) Next(_ context.Context, conv []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	if last := conv[len(conv)-1]; last.Role == api.RoleUser && strings.Contains(last.Content, "post it") {
		return api.ModelDecision{ToolCalls: []api.ToolCall{call("cX", api.ToolCreateIssueComment, m.args)}}, nil
	}
	return api.ModelDecision{Final: "nothing to do"}, nil
}

// A run (A) leaves its comment in doubt; a follow-up of it (B) does
// nothing; a follow-up of B (C) is asked for the same comment. C still
// knows A's comment: it looks under A's operationKey, and names it to the
// approver.
func TestAFollowUpOfAFollowUpStillKnowsTheFirstRunsCommentInDoubt(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	const args = `{"body":"LGTM, one nit."}`
	a := cancelledInDoubt(t, sandbox, &scriptedModel{turns: [][]api.ToolCall{{call("c1", api.ToolCreateIssueComment, args)}}})
	require.Len(t, a.InDoubt, 1)

	b := followUpHarnessOn(t, sandbox, askedModel{args}, func(string) (api.FollowUpSource, error) { return a, nil })
	b.run(followUpInput(a.Run, "carol", "just summarise"))
	require.NoError(t, b.env.GetWorkflowError())
	fromB := b.followUpSource()
	require.Equal(t, a.InDoubt, fromB.InDoubt, "B carries A's comment in doubt on")
	requireAnsweredInDoubt(t, fromB.Conversation, a.InDoubt[0])

	// Still unseen when C asks: C shows it to the approver.
	c := followUpHarnessOn(t, sandbox, askedModel{args}, func(string) (api.FollowUpSource, error) { return fromB, nil })
	var caution string
	c.whenWaiting(time.Minute, func(id string) {
		caution = c.snapshot().PendingAction.Caution
		c.decide(id, api.DecisionReject, "alice", "the first may be there")
	})
	c.run(followUpInput(fromB.Run, "carol", "post it"))
	require.NoError(t, c.env.GetWorkflowError())
	require.Contains(t, caution, "operationKey "+a.InDoubt[0].OperationKey, "the approver is shown A's comment in doubt")
	require.Contains(t, caution, "may have been posted on acme/widgets#1")

	// Seen again: C finds it under A's operationKey and posts nothing.
	sandbox.ClearFaults()
	found := followUpHarnessOn(t, sandbox, askedModel{args}, func(string) (api.FollowUpSource, error) { return fromB, nil })
	found.approveIfAsked()
	found.run(followUpInput(fromB.Run, "carol", "post it"))
	requireFoundNotPostedAgain(t, found)
}

// A run's comment is abandoned by an operator while its attempt may still
// land, and the run ends; a follow-up asks for the same comment at once.
// Its first look under the earlier operationKey finds nothing (the request
// is still held), so it holds the repeat, looking again until that attempt
// can no longer land, and finds the comment landing late: nothing is asked
// or posted again.
func TestAFollowUpHoldsARepeatWhileTheEarlierAttemptMayStillLand(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	const args = `{"body":"LGTM, one nit."}`
	first := newHarnessOn(t, new(testsuite.WorkflowTestSuite), sandbox,
		&scriptedModel{turns: [][]api.ToolCall{{call("c1", api.ToolCreateIssueComment, args)}}})
	first.failThePostUnknown()
	first.fault(ghsandbox.Fault{Op: "list_comments", Mode: ghsandbox.ModeStatus, Status: 403, After: 1, Count: 1000})
	first.env.RegisterDelayedCallback(func() {
		snap := first.snapshot()
		require.NotEmpty(t, snap.AwaitingResolve, "the look could not tell")
		first.env.SignalWorkflow(api.SignalResolve, api.ResolveSignal{StepID: snap.AwaitingResolve, Decision: api.ResolveAbandon, By: "ops"})
	}, approvedAt+2*time.Second)
	first.run(demoInput())
	require.NoError(t, first.env.GetWorkflowError())
	a := first.followUpSource()
	require.Len(t, a.InDoubt, 1)
	earlier := a.InDoubt[0]
	require.NotNil(t, earlier.ResendNotBefore, "a follow-up knows until when the attempt may land")
	preview := first.snapshot().PendingAction.Preview
	sandbox.ClearFaults()

	h := followUpHarnessOn(t, sandbox, askedModel{args}, func(string) (api.FollowUpSource, error) { return a, nil })
	require.True(t, h.env.Now().Before(*earlier.ResendNotBefore), "the follow-up starts while the attempt may land")
	h.approveWhenWaiting()
	h.env.RegisterDelayedCallback(func() {
		_, err := sandbox.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: sandbox.BotLogin(),
			Body: ghapi.MarkedBody(preview, earlier.OperationKey)})
		require.NoError(t, err)
	}, earlier.ResendNotBefore.Sub(h.env.Now())-time.Second)
	h.run(followUpInput(a.Run, "carol", "post it"))

	requireFoundNotPostedAgain(t, h)
	held := eventsWith(h.events(), func(e api.Event) bool {
		return e.Type == api.EventRunStatus && strings.Contains(e.Label, "comment not found yet; looking for it until ")
	})
	require.NotEmpty(t, held, "the follow-up said what it waited for")
}
