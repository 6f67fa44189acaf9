package e2e

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

const (
	scaleRuns    = 100
	scaleWorkers = 3
	// scaleTimeout bounds each phase of the scale test on a busy 2-core machine.
	scaleTimeout = 5 * time.Minute
)

// waitAllWaiting polls the runs' queries until every run asks for approval
// and returns each run's pending action ID.
func waitAllWaiting(t *testing.T, s *Stack, runIDs []string) map[string]string {
	t.Helper()
	var mu sync.Mutex
	actions := map[string]string{}
	return Eventually(t, scaleTimeout, "every run to wait for approval", func() (map[string]string, bool, string) {
		var pending []string
		for _, id := range runIDs {
			if _, ok := actions[id]; !ok {
				pending = append(pending, id)
			}
		}
		_ = ForEach(len(pending), 10, func(i int) error {
			snap, err := Snapshot(context.Background(), s.Client(), pending[i])
			if err == nil && snap.Run.Status == api.RunWaitingForUser && snap.PendingAction != nil {
				mu.Lock()
				actions[pending[i]] = snap.PendingAction.ID
				mu.Unlock()
			}
			return nil
		})
		return actions, len(actions) == len(runIDs), fmt.Sprintf("%d of %d waiting", len(actions), len(runIDs))
	})
}

func TestFaultScaleHundredRunsThreeWorkersOneKilledPostsEachCommentOnce(t *testing.T) {
	s := newStack(t)
	c := s.Client()
	var workers []*Process
	for range scaleWorkers {
		workers = append(workers, s.StartWorker(t))
	}
	runIDs := make([]string, scaleRuns)
	for i := range runIDs {
		runIDs[i] = fmt.Sprintf("fault-scale-%03d", i)
	}
	ctx := context.Background()

	begin := time.Now()
	require.NoError(t, ForEach(scaleRuns, 20, func(i int) error {
		return StartRun(ctx, c, s.Queue, runIDs[i], ReviewInput(toolTimeout))
	}))
	actions := waitAllWaiting(t, s, runIDs)
	burst := time.Now()
	require.NoError(t, ForEach(scaleRuns, scaleRuns, func(i int) error {
		return Approve(ctx, c, runIDs[i], actions[runIDs[i]], "alice", "scale-"+runIDs[i])
	}))
	createsAtKill := Eventually(t, scaleTimeout, "a quarter of the comments to be posted", func() (int, bool, string) {
		n := len(RequestsFor(s.Sandbox.Requests(t), ghsandbox.OpCreateComment))
		return n, n >= scaleRuns/4, strconv.Itoa(n) + " create_comment requests"
	})
	workers[0].Kill()

	resultCtx, cancel := context.WithTimeout(ctx, scaleTimeout)
	defer cancel()
	var mu sync.Mutex
	statuses := map[api.RunStatus]int{}
	require.NoError(t, ForEach(scaleRuns, scaleRuns, func(i int) error {
		res, err := Result(resultCtx, c, runIDs[i])
		mu.Lock()
		statuses[res.Status]++
		mu.Unlock()
		return err
	}))
	elapsed, afterBurst := time.Since(begin), time.Since(burst)

	summary := fmt.Sprintf("scale: %d runs on %d workers, one SIGKILLed after %d create requests: all closed %s after the first start, %s after the approval burst",
		scaleRuns, scaleWorkers, createsAtKill, elapsed.Round(time.Millisecond), afterBurst.Round(time.Millisecond))
	t.Log(summary)
	fmt.Println(summary)

	require.Equal(t, map[api.RunStatus]int{api.RunCompleted: scaleRuns}, statuses)
	posted := s.Sandbox.PostedComments(t)
	require.Equal(t, scaleRuns, posted.Total())
	require.Zero(t, posted.Duplicates())
	for _, id := range runIDs {
		require.Len(t, posted[id], 1, "comments of run %s", id)
	}
	require.NoError(t, ForEach(scaleRuns, 10, func(i int) error {
		return commentStepPointsAt(ctx, s, runIDs[i], posted[runIDs[i]][0].GetID())
	}))
}

// commentStepPointsAt checks, through the run query, that the run's comment
// step succeeded with the comment's ID.
func commentStepPointsAt(ctx context.Context, s *Stack, runID string, commentID int64) error {
	snap, err := Snapshot(ctx, s.Client(), runID)
	if err != nil {
		return err
	}
	step := CommentStep(snap)
	if step == nil || step.Status != api.StepSucceeded || step.ExternalResourceID != strconv.FormatInt(commentID, 10) {
		return fmt.Errorf("run %s: comment step does not point at comment %d: %s", runID, commentID, Describe(snap))
	}
	return nil
}
