package workflows

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

const followUpRunID = "run-test-2"

// finishedFirstRun runs the demo review to its one posted comment on
// sandbox and returns what a follow-up would load of it.
func finishedFirstRun(t *testing.T, sandbox *ghsandbox.Server) api.FollowUpSource {
	t.Helper()
	h := newHarnessWith(t, sandbox)
	h.approveWhenWaiting()
	h.runPostingOnce(demoInput(), 1)
	return api.FollowUpSource{Run: h.snapshot().Run, Conversation: h.conversation(0)}
}

// followUpHarness is a harness for a second run on the same sandbox whose
// LoadFollowUp answers load (the testsuite's activities cannot query a run;
// the dev-server test reads the real one).
func followUpHarness(t *testing.T, sandbox *ghsandbox.Server, load func(string) (api.FollowUpSource, error)) *harness {
	t.Helper()
	return followUpHarnessOn(t, sandbox, offline.NewReviewer(), load)
}

// followUpHarnessOn is followUpHarness with m as the model.
func followUpHarnessOn(t *testing.T, sandbox *ghsandbox.Server, m model.Model, load func(string) (api.FollowUpSource, error)) *harness {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	h := newHarnessOn(t, &suite, sandbox, m)
	h.env.SetStartWorkflowOptions(client.StartWorkflowOptions{ID: followUpRunID})
	// A follow-up starts once the earlier run has ended, in its clock.
	if src, err := load(""); err == nil && src.Run.UpdatedAt.After(h.env.Now()) {
		h.env.SetStartTime(src.Run.UpdatedAt)
	}
	h.env.OnActivity(api.ActivityLoadFollowUp, mock.Anything, mock.Anything).Return(
		func(_ context.Context, id string) (api.FollowUpSource, error) { return load(id) })
	return h
}

func followUpInput(earlier api.Run, user, goal string) api.RunInput {
	in := api.FollowUpInput(earlier, user, goal)
	in.ToolTimeout, in.InlineConversationBytes = 5*time.Second, -1
	return in
}

func TestAFollowUpSeesTheFirstConversationAndPostsOneNewComment(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := finishedFirstRun(t, sandbox)
	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	h.approveWhenWaiting()

	h.run(followUpInput(first.Run, "carol", "also say whether the tests pass"))

	require.NoError(t, h.env.GetWorkflowError())
	require.Equal(t, 2, h.markedComments(), "one comment of the first run, one of the follow-up")
	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, first.Run.ID, snap.Run.FollowUp)
	require.Equal(t, first.Run.ConversationID, snap.Run.ConversationID, "the same conversation")
	conv := h.conversation(0)
	require.Equal(t, first.Conversation, conv[:len(first.Conversation)], "the follow-up starts from the first run's conversation")
	require.Equal(t, api.RoleUser, conv[len(first.Conversation)].Role)
	require.Contains(t, conv[len(first.Conversation)].Content, "also say whether the tests pass")
	st := h.commentStep(snap)
	require.Equal(t, followUpRunID+":"+strings.TrimPrefix(st.ID, "step-"), st.OperationKey, "the new comment is the follow-up's own operation")
	var reads int
	for _, s := range snap.Steps {
		if s.ToolName == api.ToolGetPullRequest || s.ToolName == api.ToolListPullRequestFiles {
			reads++
		}
	}
	require.Zero(t, reads, "what the first run read is in the conversation; nothing of it ran again")
}

func TestAFollowUpRunsNoCallTheEarlierRunLeftOpen(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := finishedFirstRun(t, sandbox)
	// The earlier run as if it had ended right after the model asked for
	// the comment: the call is history, never this run's to make.
	cut := first.Conversation[:0:0]
	for _, m := range first.Conversation {
		cut = append(cut, m)
		if len(m.ToolCalls) > 0 && m.ToolCalls[0].Name == api.ToolCreateIssueComment {
			break
		}
	}
	first.Conversation = cut
	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	h.approveWhenWaiting()

	h.run(followUpInput(first.Run, "carol", "post it now"))

	require.NoError(t, h.env.GetWorkflowError())
	conv := h.conversation(0)
	require.Equal(t, unansweredCallNote, conv[len(cut)].Content, "the open call is answered as not run")
	require.Equal(t, 2, h.markedComments(), "the follow-up's one comment beside the first run's")
	require.Len(t, h.snapshot().Actions, 1, "one action, the follow-up's own")
}

func TestAFollowUpIsRefusedWhereItsQueriesShowIt(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := finishedFirstRun(t, sandbox)
	withApprovers := first
	withApprovers.Run.Approvers = []string{"bob"}
	open := first
	open.Run.Status = api.RunWaitingForUser
	for _, tc := range []struct {
		name string
		src  api.FollowUpSource
		in   func(api.RunInput) api.RunInput
		why  string
	}{
		{"still open", open, nil, "is still open (waiting_for_user)"},
		{"another target", first, func(in api.RunInput) api.RunInput { in.PullNumber = 2; return in }, "was on another target"},
		{"another agent", first, func(in api.RunInput) api.RunInput { in.Agent = "triage"; return in }, "keeps its run's agent"},
		{"other approvers", withApprovers, func(in api.RunInput) api.RunInput { in.Approvers = []string{"mallory"}; return in }, "keeps run"},
		{"not requester nor approver", withApprovers, func(in api.RunInput) api.RunInput { in.UserID = "mallory"; return in }, "only its requester or an approver may"},
		{"a reader on a run without approvers", first, func(in api.RunInput) api.RunInput { in.UserID = "mallory"; return in }, "following up needs write"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return tc.src, nil })
			in := followUpInput(tc.src.Run, "carol", "again")
			if tc.in != nil {
				in = tc.in(in)
			}
			h.runFailing(in, tc.why)
			snap := h.snapshot()
			require.Equal(t, api.RunFailed, snap.Run.Status)
			require.Contains(t, snap.Run.Error, tc.why, "the run query says why")
			require.Equal(t, followUpRunID, snap.Run.ConversationID, "a refused run joins no conversation")
			require.Empty(t, snap.Actions)
			require.Equal(t, 1, h.markedComments(), "nothing posted again")
		})
	}
}

func TestAFollowUpOfAMissingRunIsRefusedSayingSo(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	h := followUpHarness(t, sandbox, func(id string) (api.FollowUpSource, error) {
		return api.FollowUpSource{}, temporal.NewNonRetryableApplicationError("there is no run "+id+" to follow up on", "FollowUpRefused", nil)
	})
	in := demoInput()
	in.FollowUp, in.Goal = "review-nope", "again"

	h.runFailing(in, "there is no run review-nope to follow up on")
	require.Equal(t, 0, h.markedComments())
}

func TestAFollowUpThatLoadsAnotherRunsRecordIsRefused(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	first := finishedFirstRun(t, sandbox)
	h := followUpHarness(t, sandbox, func(string) (api.FollowUpSource, error) { return first, nil })
	in := followUpInput(first.Run, "carol", "again")
	in.FollowUp = "run-other"

	h.runFailing(in, "run run-other answered as run "+first.Run.ID)
}
