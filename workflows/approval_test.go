package workflows

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/mock"
	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/model/offline"
)

func TestApprovedReviewPostsExactlyOneComment(t *testing.T) {
	h := newHarness(t)
	var preview string
	h.whenWaiting(time.Minute, func(id string) {
		snap := h.snapshot()
		preview = snap.PendingAction.Preview
		require.Equal(t, api.ActionWaiting, snap.PendingAction.State)
		require.Equal(t, "acme/widgets#1", snap.PendingAction.Target)
		require.Equal(t, api.LabelWaitingApproval, snap.Label)
		require.Equal(t, api.StepWaitingForApproval, h.commentStep(snap).Status)
		require.Equal(t, 0, h.markedComments(), "nothing may be posted before approval")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	var res api.RunResult
	require.NoError(t, h.env.GetWorkflowResult(&res))
	require.Equal(t, api.RunCompleted, res.Status)

	comments := h.sandbox.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1)
	require.True(t, strings.HasPrefix(comments[0].Body, preview), "the posted body is the approved preview")
	require.Contains(t, comments[0].Body, api.OperationMarker(testRunID+":5"))
	require.Contains(t, preview, "TODO", "the offline reviewer reports the fixture's TODO")

	snap := h.snapshot()
	require.Equal(t, api.RunCompleted, snap.Run.Status)
	require.Equal(t, api.LabelDone, snap.Label)
	st := h.commentStep(snap)
	require.Equal(t, api.StepSucceeded, st.Status)
	require.Equal(t, testRunID+":5", st.OperationKey)
	require.NotEmpty(t, st.ExternalResourceID)
	require.Equal(t, api.ActionApproved, snap.PendingAction.State)
	require.Equal(t, "alice", snap.PendingAction.DecidedBy)
	require.Equal(t, snap.Run.LastCommittedSequence, h.events()[len(h.events())-1].Sequence)
	requireLegalHistory(t, h.events())
}

// A "no", said or left unsaid, posts nothing and the run still completes,
// telling the model why.
func TestApprovalNotGivenPostsNothingAndTellsTheModel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(h *harness, in *api.RunInput)
		action api.ActionState
		step   api.StepStatus
		result string
	}{{
		name: "RejectedReviewPostsNothingAndTellsTheModel",
		answer: func(h *harness, _ *api.RunInput) {
			h.whenWaiting(time.Minute, func(id string) { h.decide(id, api.DecisionReject, "bob", "too harsh") })
		},
		action: api.ActionRejected, step: api.StepRejected, result: "rejected by bob: too harsh",
	}, {
		name:   "UnansweredApprovalExpiresAndPostsNothing",
		answer: func(_ *harness, in *api.RunInput) { in.ApprovalTimeout = 2 * time.Hour },
		action: api.ActionExpired, step: api.StepExpired, result: "expired",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			in := demoInput()
			tc.answer(h, &in)
			snap := h.runPostingNothing(in)
			require.Equal(t, api.RunCompleted, snap.Run.Status)
			require.Equal(t, tc.step, h.commentStep(snap).Status)
			require.Equal(t, tc.action, snap.PendingAction.State)
			require.Contains(t, snap.Run.Result, tc.result)
			requireLegalHistory(t, h.events())
		})
	}
}

func TestFiveDuplicateApprovalsPostOneComment(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		for i := 0; i < 5; i++ {
			h.decide(id, api.DecisionApprove, "alice", "")
		}
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	dups := eventsWith(h.events(), func(e api.Event) bool {
		return e.Type == api.EventSignalIgnored && strings.Contains(e.Detail, "the action was already approved")
	})
	require.Len(t, dups, 4)
}

func TestApprovalForWrongActionIsIgnored(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.decide("act-does-not-exist", api.DecisionApprove, "alice", "")
	})
	h.whenWaiting(2*time.Minute, func(id string) {
		snap := h.snapshot()
		require.Equal(t, api.ActionWaiting, snap.PendingAction.State, "a wrong action ID changes nothing")
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())
	require.Equal(t, 1, h.markedComments())
	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 1)
	require.Contains(t, ignored[0].Detail, "unknown action")
}

func TestApprovalByUnlistedApproverIsIgnored(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) {
		h.decide(id, api.DecisionApprove, "mallory", "")
		h.decide(id, "maybe", "alice", "")
	})
	h.whenWaiting(2*time.Minute, func(id string) {
		require.Equal(t, api.ActionWaiting, h.snapshot().PendingAction.State)
		h.decide(id, api.DecisionApprove, "Alice", "")
	})
	h.run(in)
	require.Equal(t, 1, h.markedComments())
	snap := h.snapshot()
	require.Equal(t, "Alice", snap.PendingAction.DecidedBy)
	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 2)
	require.Contains(t, ignored[0].Detail, "mallory is not an approver of this run")
	require.Contains(t, ignored[1].Detail, `unknown decision "maybe"`)
}

func TestApprovalAfterExpiryPostsNothing(t *testing.T) {
	h := newHarness(t)
	// Each model call takes an hour of workflow time, so the run is still
	// open (in its last model call) when the late approval arrives.
	reviewer := offline.NewReviewer()
	h.env.OnActivity(acts.ModelNext, mock.Anything, mock.Anything).
		Return(func(ctx context.Context, in api.ModelInput) (api.ModelDecision, error) {
			agent, err := builtin.registry.Agent(in.Agent)
			if err != nil {
				return api.ModelDecision{}, err
			}
			return reviewer.Next(ctx, in.Conversation, builtin.registry.Specs(agent))
		}).After(time.Hour)
	in := demoInput()
	in.ApprovalTimeout = 2 * time.Hour
	var actionID string
	h.whenWaiting(2*time.Hour+30*time.Minute, func(id string) { actionID = id })
	h.env.RegisterDelayedCallback(func() {
		snap := h.snapshot()
		require.Equal(t, api.ActionExpired, snap.PendingAction.State)
		require.Equal(t, api.RunRunning, snap.Run.Status)
		h.decide(actionID, api.DecisionApprove, "alice", "")
	}, 4*time.Hour+30*time.Minute)
	snap := h.runPostingNothing(in)
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	require.Equal(t, api.StepExpired, h.commentStep(snap).Status)
	late := eventsWith(h.events(), func(e api.Event) bool {
		return e.Type == api.EventSignalIgnored && strings.Contains(e.Detail, "the action expired at")
	})
	require.Len(t, late, 1)
}

func TestRefusalFromTheApprovalServerIsRecordedAndTheActionStaysOpen(t *testing.T) {
	h := newHarness(t)
	var stepID string
	h.whenWaiting(time.Minute, func(id string) {
		stepID = h.snapshot().PendingAction.StepID
		h.env.SignalWorkflow(api.SignalRefusal, api.RefusalSignal{
			ActionID: id, Who: "mallory", Channel: "GitHub comment",
			Reason: "mallory has read permission on acme/widgets; approving needs write",
		})
	})
	h.whenWaiting(2*time.Minute, func(id string) {
		require.Equal(t, api.ActionWaiting, h.snapshot().PendingAction.State, "a refusal changes nothing")
		require.Equal(t, 0, h.markedComments())
		h.decide(id, api.DecisionApprove, "bob", "")
	})
	h.run(demoInput())
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments())
	require.Equal(t, "bob", h.snapshot().PendingAction.DecidedBy)
	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 1)
	require.Equal(t, stepID, ignored[0].StepID)
	require.Equal(t, "refused by the approval server (GitHub comment): "+
		"mallory has read permission on acme/widgets; approving needs write", ignored[0].Detail, "mallory is named once")
	requireLegalHistory(t, h.events())
}

func TestRefusalWithOversizedFieldsIsRecordedBounded(t *testing.T) {
	h := newHarness(t)
	h.whenWaiting(time.Minute, func(id string) {
		h.env.SignalWorkflow(api.SignalRefusal, api.RefusalSignal{
			ActionID: "act-unknown", Who: strings.Repeat("m", 5000), Channel: "signed API", Reason: strings.Repeat("é", 5000),
		})
		h.decide(id, api.DecisionApprove, "alice", "")
	})
	h.run(demoInput())

	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 1)
	require.Empty(t, ignored[0].StepID, "a refusal for an action the run does not have belongs to no step")
	require.LessOrEqual(t, len(ignored[0].Detail), 3*200+100, "each field is cut to 200 bytes")
	require.True(t, utf8.ValidString(ignored[0].Detail))
	require.Equal(t, 1, h.markedComments())
}

func TestRepeatedRequestIsIgnoredButAnotherPersonsRequestIDCannotBeBurned(t *testing.T) {
	h := newHarness(t)
	in := demoInput()
	in.Approvers = []string{"alice"}
	h.whenWaiting(time.Minute, func(id string) {
		send := func(approver, requestID string) {
			h.env.SignalWorkflow(api.SignalApproval, api.ApprovalSignal{ActionID: id, Decision: api.DecisionApprove, Approver: approver, RequestID: requestID, Channel: "signed API"})
		}
		send("mallory", "r1")
		send("mallory", "r1")
		send(" alice ", "r1")
	})
	h.run(in)
	require.NoError(t, h.env.GetWorkflowError())

	require.Equal(t, 1, h.markedComments(), "mallory's refused r1 did not burn alice's r1")
	snap := h.snapshot()
	require.Equal(t, "alice", snap.PendingAction.DecidedBy, "the approver is recorded trimmed")
	require.Equal(t, []string{api.RequestKey("signed API", "mallory", "r1"), api.RequestKey("signed API", "alice", "r1")}, snap.PendingAction.RequestKeys)
	ignored := eventsWith(h.events(), func(e api.Event) bool { return e.Type == api.EventSignalIgnored })
	require.Len(t, ignored, 2)
	require.Contains(t, ignored[0].Detail, "mallory is not an approver of this run")
	require.Equal(t, `repeated request "r1"`, ignored[1].Detail)
}
