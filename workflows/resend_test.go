package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	ghapi "github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// approvedAt is when these tests approve the post; its attempt runs at once.
const approvedAt = time.Minute

// failThePostUnknown makes the post's one request fail with a 502, which
// proves nothing: GitHub may still be making the comment.
func (h *harness) failThePostUnknown() {
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpCreateComment, Mode: ghsandbox.ModeStatus, Status: 502})
	h.approveWhenWaiting()
}

// landTheFirstAttemptAt plays the first attempt's request reaching GitHub
// late: at workflow time at, the comment it would have made appears, by
// the bot, with the approved body and the step's marker.
func (h *harness) landTheFirstAttemptAt(at time.Duration) {
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		st := h.commentStep(snap)
		require.Equal(h.t, 1, st.Attempt, "the post was not sent again before the first attempt could land")
		_, err := h.sandbox.PostAs(ghsandbox.CommentAs{Owner: "acme", Repo: "widgets", Number: 1, User: h.sandbox.BotLogin(),
			Body: ghapi.MarkedBody(snap.PendingAction.Preview, st.OperationKey)})
		require.NoError(h.t, err)
	}, at)
}

func TestAPostNotFoundWhileItsRequestMayLandIsFoundWhenItLandsAndNotSentAgain(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	in := demoInput()
	// Within the window (tool timeout + margin) the first attempt opened,
	// but after a resend at once would have posted.
	h.landTheFirstAttemptAt(approvedAt + (in.ToolTimeout+resendMargin)/2)
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, 1, st.Attempt, "found, never sent again")
	require.Contains(t, string(st.SafeOutput), `"alreadyExisted":true`)
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	requireLegalHistory(t, h.events())
}

func TestAPostNotFoundIsSentAgainOnlyOnceItsAttemptsDeadlineAndMarginHavePassed(t *testing.T) {
	h := newHarness(t)
	h.failThePostUnknown()
	in := demoInput()
	st := h.runPostingOnce(in, 2)
	require.Nil(t, st.ResendNotBefore, "the second attempt's window closed with its answer")

	events := h.events()
	requireLegalHistory(t, events)
	notFound := eventsWith(events, func(e api.Event) bool {
		return e.StepID == st.ID && strings.Contains(e.Detail, "not found; the attempt's request may land until")
	})
	require.Len(t, notFound, 1, "one window, opened by the first look")
	resent := eventsWith(events, func(e api.Event) bool {
		return e.StepID == st.ID && e.Status == string(api.StepRunning) && strings.Contains(e.Detail, "attempt 2 with the same operationKey")
	})
	require.Len(t, resent, 1)
	require.GreaterOrEqual(t, resent[0].At.Sub(notFound[0].At), in.ToolTimeout+resendMargin,
		"sent again no sooner than the first attempt's deadline and the margin after the first look")
	lookedAgain := eventsWith(events, func(e api.Event) bool {
		return e.Type == api.EventRunStatus && strings.Contains(e.Detail, "not found yet; looking again in")
	})
	require.Greater(t, len(lookedAgain), 1, "the run looked again while the first attempt could still land")
	for _, e := range lookedAgain {
		require.Less(t, e.At, resent[0].At, "every look again came before the resend")
	}
}
