package e2e

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// toolTimeout is the start-to-close of one GitHub call in the fault suite:
// short, so that a call lost with a killed worker times out quickly.
const toolTimeout = 3 * time.Second

// runTimeout bounds how long one run may take to settle under faults.
const runTimeout = 90 * time.Second

// requireOnePostedComment is RequireOnePostedComment on the stack, within runTimeout.
func requireOnePostedComment(t *testing.T, s *Stack, runID string) api.RunSnapshot {
	t.Helper()
	return RequireOnePostedComment(t, s.Client(), s.Sandbox, runID, runTimeout)
}

func TestFaultWorkerKilledDuringTheCommentCallPostsOnceAndReconciles(t *testing.T) {
	s := newStack(t)
	first := s.StartWorker(t)
	const runID = "fault-kill-during-comment"
	MustStartRun(t, s.Client(), s.Queue, runID, ReviewInput(toolTimeout))
	// The sandbox creates the comment, then holds the answer far longer than
	// the test waits: the worker dies with the call in flight.
	s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDelay, DelayMs: 120000})
	WaitAndApprove(t, s.Client(), runID, runTimeout)
	Eventually(t, runTimeout, "the comment to be created with its answer held", func() (struct{}, bool, string) {
		creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)
		return struct{}{}, len(creates) == 1 && creates[0].Status == 201, "create_comment requests: " + strconv.Itoa(len(creates))
	})

	first.Kill()
	s.StartWorker(t)

	snap := requireOnePostedComment(t, s, runID)
	require.Equal(t, 1, s.Sandbox.PostedComments(t).Total())
	require.Len(t, RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment), 1, "the comment was never created again")
	events := MustEvents(t, s.Client(), runID)
	require.True(t, HasEvent(events, api.EventRunStatus, string(api.RunReconciling)), "the run reconciled")
	require.True(t, HasEvent(events, api.EventStepStatus, string(api.StepOutcomeUnknown)), "the step was outcome_unknown")
	require.Contains(t, string(CommentStep(snap).SafeOutput), `"alreadyExisted":true`)
}

func TestFaultLostCommentResponseReconcilesToOneComment(t *testing.T) {
	s := newStack(t)
	s.StartWorker(t)
	const runID = "fault-lost-response"
	MustStartRun(t, s.Client(), s.Queue, runID, ReviewInput(toolTimeout))
	s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeDropResponse})

	WaitAndApprove(t, s.Client(), runID, runTimeout)

	snap := requireOnePostedComment(t, s, runID)
	require.Equal(t, 1, s.Sandbox.PostedComments(t).Total())
	creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)
	require.Len(t, creates, 1, "the comment was never created again")
	require.Equal(t, ghsandbox.ModeDropResponse, creates[0].Fault)
	require.True(t, HasEvent(MustEvents(t, s.Client(), runID), api.EventRunStatus, string(api.RunReconciling)))
	require.Contains(t, string(CommentStep(snap).SafeOutput), `"alreadyExisted":true`)
	require.Empty(t, s.Sandbox.Faults(t))
}
