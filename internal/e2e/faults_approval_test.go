package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/serviceerror"

	"github.com/agentrun/agentrun/api"
)

const concurrentApprovals = 20

// raceApprovals sends n approvals of one action at once, alternating between
// the signed API and the GitHub webhook, and returns every answer.
func raceApprovals(t *testing.T, a *ApprovalServer, runID, actionID string, n int) []Answer {
	t.Helper()
	var (
		mu      sync.Mutex
		answers []Answer
	)
	start := make(chan struct{})
	var ready sync.WaitGroup
	ready.Add(n)
	go func() {
		ready.Wait()
		close(start)
	}()
	err := ForEach(n, n, func(i int) error {
		ready.Done()
		<-start
		var (
			ans Answer
			err error
		)
		if i%2 == 0 {
			ans, err = a.DecideSigned(context.Background(), runID, actionID, "alice", fmt.Sprintf("race-api-%d", i))
		} else {
			ans, err = a.DeliverComment(context.Background(), CommentCommand{
				DeliveryID: fmt.Sprintf("race-delivery-%d", i),
				CommentID:  int64(9000000 + i),
				Commenter:  "alice",
				Body:       "/agentrun approve " + actionID,
			})
		}
		mu.Lock()
		answers = append(answers, ans)
		mu.Unlock()
		return err
	})
	require.NoError(t, err)
	return answers
}

func TestFaultApprovalRacesGiveOneOutcome(t *testing.T) {
	s := newStack(t)
	s.StartWorker(t)
	approval := StartApprovalServer(t, s)
	c := s.Client()

	t.Run("20 concurrent approvals through the signed API and the webhook post one comment", func(t *testing.T) {
		const runID = "fault-approval-burst"
		MustStartRun(t, c, s.Queue, runID, ReviewInput(toolTimeout))
		waiting := WaitForStatus(t, c, runID, api.RunWaitingForUser, runTimeout)

		answers := raceApprovals(t, approval, runID, waiting.PendingAction.ID, concurrentApprovals)

		accepted := 0
		for _, ans := range answers {
			// 409: already approved; 404 (webhook only): the run had already ended
			// when the delivery looked for the open run holding the action.
			allowed := []int{http.StatusAccepted, http.StatusConflict}
			if ans.Channel == "webhook" {
				allowed = append(allowed, http.StatusNotFound)
			}
			require.Contains(t, allowed, ans.Code, ans.String())
			if ans.Code == http.StatusAccepted {
				accepted++
			}
		}
		require.Positive(t, accepted, "at least one approval was accepted: %v", answers)
		snap := requireOnePostedComment(t, s, runID)
		require.Equal(t, 1, CountEvents(MustEvents(t, c, runID), api.EventActionState, string(api.ActionApproved)))
		require.Equal(t, api.ActionApproved, snap.PendingAction.State)
		t.Logf("%d of %d approvals answered 202; the run applied one", accepted, len(answers))
	})

	t.Run("an approval at the moment of expiry is posted or expired, never both", func(t *testing.T) {
		// Each run gets its approvals at a different distance from its own
		// expiry, so that the suite crosses the boundary from both sides.
		offsets := []time.Duration{-40 * time.Millisecond, -10 * time.Millisecond, 0, 10 * time.Millisecond, 40 * time.Millisecond}
		in := ReviewInput(toolTimeout)
		in.ApprovalTimeout = 5 * time.Second
		runIDs := make([]string, len(offsets))
		for i := range offsets {
			runIDs[i] = "fault-approval-expiry-" + strconv.Itoa(i)
			MustStartRun(t, c, s.Queue, runIDs[i], in)
		}
		snaps := make([]api.RunSnapshot, len(offsets))
		for i, runID := range runIDs {
			snaps[i] = WaitForStatus(t, c, runID, api.RunWaitingForUser, runTimeout)
		}

		answers := make([]Answer, len(offsets))
		require.NoError(t, ForEach(len(offsets), len(offsets), func(i int) error {
			action := snaps[i].PendingAction
			// Aiming at the deadline is the point of the scenario: this wait is
			// the stimulus, not a wait for an outcome.
			<-time.After(time.Until(action.ExpiresAt.Add(offsets[i])))
			// The approval server refuses what its own clock calls expired; the
			// signal sent beside it lets the workflow settle the race itself.
			var signalErr error
			done := make(chan struct{})
			go func() {
				signalErr = Approve(context.Background(), c, runIDs[i], action.ID, "alice", "expiry-signal-"+runIDs[i])
				close(done)
			}()
			ans, err := approval.DecideSigned(context.Background(), runIDs[i], action.ID, "alice", "expiry-api-"+runIDs[i])
			answers[i] = ans
			<-done
			if err != nil {
				return err
			}
			// A run can expire, finish its review and close within the offset;
			// its signal then finds no open workflow, which is that outcome.
			var closed *serviceerror.NotFound
			if errors.As(signalErr, &closed) {
				return nil
			}
			return signalErr
		}))

		outcomes := map[api.ActionState]int{}
		for i, runID := range runIDs {
			res := WaitForResult(t, c, runID, runTimeout)
			require.Equal(t, api.RunCompleted, res.Status)
			state := requireOneOutcome(t, s, runID)
			outcomes[state]++
			require.Contains(t, []int{http.StatusAccepted, http.StatusConflict}, answers[i].Code, answers[i].String())
			t.Logf("approval %s from expiry: signed API %d, outcome %s", offsets[i], answers[i].Code, state)
		}
		t.Logf("outcomes at the expiry boundary: %v", outcomes)
	})
}

// requireOneOutcome checks that a run whose approval raced its expiry ended
// one way only: approved with exactly one comment, or expired with none.
func requireOneOutcome(t *testing.T, s *Stack, runID string) api.ActionState {
	t.Helper()
	snap := WaitForStatus(t, s.Client(), runID, api.RunCompleted, runTimeout)
	events := MustEvents(t, s.Client(), runID)
	require.Len(t, snap.Actions, 1, Describe(snap))
	state := snap.Actions[0].State
	require.True(t, slices.Contains([]api.ActionState{api.ActionApproved, api.ActionExpired}, state), "action state %s", state)
	approvedEvents := CountEvents(events, api.EventActionState, string(api.ActionApproved))
	expiredEvents := CountEvents(events, api.EventActionState, string(api.ActionExpired))
	comments := len(s.Sandbox.PostedComments(t)[runID])
	step := CommentStep(snap)
	require.NotNil(t, step, Describe(snap))
	if state == api.ActionApproved {
		require.Equal(t, []int{1, 0, 1}, []int{approvedEvents, expiredEvents, comments}, "approved, expired events and comments of %s", runID)
		require.Equal(t, api.StepSucceeded, step.Status)
	} else {
		require.Equal(t, []int{0, 1, 0}, []int{approvedEvents, expiredEvents, comments}, "approved, expired events and comments of %s", runID)
		require.Equal(t, api.StepExpired, step.Status)
	}
	return state
}
