package e2e

import (
	"strconv"
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
