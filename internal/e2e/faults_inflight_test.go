package e2e

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// landLateMs is how long the sandbox holds a create before it lands: past
// the fault suite's tool timeout, so the attempt's worker has died or given
// up by then, and within that timeout plus the comment tool's resend
// margin (api.ToolSpec.ResendMargin), which is how long a request may
// still land.
const landLateMs = 6000

// TestFaultACreateThatLandsLateIsFoundAndNeverSentAgain sends the post into
// a create that GitHub performs only after a delay. Whether its worker is
// killed meanwhile or gives up at its tool timeout, a look finds nothing at
// first; a resend then would make a second comment once the first lands.
func TestFaultACreateThatLandsLateIsFoundAndNeverSentAgain(t *testing.T) {
	s := newStack(t)
	for _, tc := range []struct {
		name, queue string
		kill        bool
	}{
		{name: "worker killed while the create is in flight", queue: "land-late-kill", kill: true},
		{name: "worker gives up on the create at its tool timeout", queue: "land-late-timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runID := "fault-" + tc.queue
			first := s.StartWorkerOn(t, tc.queue, nil)
			MustStartRun(t, s.Client(), tc.queue, runID, ReviewInput(toolTimeout))
			before := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment))
			s.Sandbox.AddFaults(t, ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeLandLate, DelayMs: landLateMs})
			WaitAndApprove(t, s.Client(), runID, runTimeout)
			Eventually(t, runTimeout, "the create to reach the sandbox and be held", func() (struct{}, bool, string) {
				creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
				return struct{}{}, len(creates) == 1, "create_comment requests: " + strconv.Itoa(len(creates))
			})
			if tc.kill {
				first.Kill()
				s.StartWorkerOn(t, tc.queue, nil)
			}

			WaitForStatus(t, s.Client(), runID, api.RunCompleted, runTimeout)
			// A resend would be answered first; the late create lands after.
			Eventually(t, runTimeout, "every create to have landed or failed", func() (struct{}, bool, string) {
				for _, c := range RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:] {
					if c.Status == 0 {
						return struct{}{}, false, "a create is still held"
					}
				}
				return struct{}{}, true, ""
			})
			require.Len(t, s.Sandbox.PostedComments(t)[runID], 1, "one comment for the run")
			snap := requireOnePostedComment(t, s, runID)
			st := CommentStep(snap)
			require.Equal(t, 1, st.Attempt, "found when it landed, never sent again")
			require.Contains(t, string(st.SafeOutput), `"alreadyExisted":true`)
			creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
			require.Len(t, creates, 1, "one create request, the late one")
			require.Equal(t, ghsandbox.ModeLandLate, creates[0].Fault)
			events := MustEvents(t, s.Client(), runID)
			require.True(t, HasEvent(events, api.EventStepStatus, string(api.StepOutcomeUnknown)), "the step was outcome_unknown")
			require.True(t, HasEvent(events, api.EventRunStatus, string(api.RunReconciling)), "the run reconciled")
		})
	}
	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, 2, posted.Total())
	require.Zero(t, posted.Duplicates())
}

// retryLandLateMs is how long the sandbox holds the create in the retry
// test: past the killed worker's heartbeat timeout, the refused look and
// the operator's retry, and within the attempt's deadline plus the resend
// margin, so the first request lands while the retry would be sent.
const retryLandLateMs = 15000

// TestFaultAnOperatorsRetryOfACreateStillInFlightPostsOnce is the red
// team's path: a create is in flight at GitHub when the worker dies, the
// run's look is refused (403), so it cannot tell and waits for an
// operator, and the operator runs `starter resolve --decision retry` while
// the first request is still held. The retry is taken and held until the
// first attempt can no longer land; a look finds its comment when it
// lands, and nothing is sent again. A retry sent at once would find
// nothing (the create is still held) and post a second comment.
func TestFaultAnOperatorsRetryOfACreateStillInFlightPostsOnce(t *testing.T) {
	s := newStack(t)
	queue := "retry-in-flight"
	runID := "fault-" + queue
	first := s.StartWorkerOn(t, queue, nil)
	MustStartRun(t, s.Client(), queue, runID, ReviewInput(toolTimeout))
	before := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment))
	s.Sandbox.AddFaults(t,
		ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeLandLate, DelayMs: retryLandLateMs},
		// The create's own listing is let through; the run's look after
		// the kill is refused.
		ghsandbox.Fault{Op: ghsandbox.OpListComments, Mode: ghsandbox.ModeStatus, Status: 403, After: 1, Count: 1})
	WaitAndApprove(t, s.Client(), runID, runTimeout)
	Eventually(t, runTimeout, "the create to reach the sandbox and be held", func() (struct{}, bool, string) {
		creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
		return struct{}{}, len(creates) == 1, "create_comment requests: " + strconv.Itoa(len(creates))
	})
	first.Kill()
	s.StartWorkerOn(t, queue, nil)

	waiting := WaitForRun(t, s.Client(), runID, runTimeout, "waiting for an operator", func(snap api.RunSnapshot) bool {
		return snap.AwaitingResolve != ""
	})
	st := CommentStep(waiting)
	require.NotNil(t, st)
	held := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
	require.Len(t, held, 1)
	require.Zero(t, held[0].Status, "the first create is still in flight when the operator retries")
	res, err := RunCommand(context.Background(), s.Bins.Starter, s.StarterEnv(),
		"resolve", runID, "--step", st.ID, "--decision", "retry", "--as", "ops")
	require.NoError(t, err)
	require.Equal(t, 0, res.ExitCode, res.Stderr)
	WaitForRun(t, s.Client(), runID, runTimeout, "the retry taken and held, saying until when", func(snap api.RunSnapshot) bool {
		return strings.HasPrefix(snap.Label, "retry taken; sending at ") || snap.Run.Status == api.RunCompleted
	})

	done := WaitForStatus(t, s.Client(), runID, api.RunCompleted, runTimeout)
	Eventually(t, runTimeout, "every create to have landed or failed", func() (struct{}, bool, string) {
		for _, c := range RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:] {
			if c.Status == 0 {
				return struct{}{}, false, "a create is still held"
			}
		}
		return struct{}{}, true, ""
	})
	require.Len(t, s.Sandbox.PostedComments(t)[runID], 1, "one comment for the run")
	creates := RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment)[before:]
	require.Len(t, creates, 1, "one effective create: the late one")
	require.Equal(t, ghsandbox.ModeLandLate, creates[0].Fault)
	got := CommentStep(done)
	require.Equal(t, api.StepSucceeded, got.Status)
	require.Equal(t, 1, got.Attempt, "found when it landed, never sent again")
	require.Contains(t, string(got.SafeOutput), `"alreadyExisted":true`)
}
