package workflows

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/model"
	"github.com/agentrun/agentrun/model/offline"
)

// The retry and timeout policy each activity of a run gets (options.go), as
// the documents promise it: how many tries a read and a model call get, how
// far apart, and how soon a call whose worker died is given up.

// A read GitHub keeps failing with 5xx is tried ten times in all, the local
// first try included ("up to 10 tries", docs/operations.md), 1 s apart at
// first and doubling to at most 30 s; then the run ends, since a review of
// what it could not read is no review.
func TestAReadThatKeepsFailingIsTriedTenTimesInAllThenEndsTheRun(t *testing.T) {
	h := newHarness(t)
	log := h.logCommands()
	h.fault(ghsandbox.Fault{Op: ghsandbox.OpGetPullRequest, Mode: ghsandbox.ModeStatus, Status: 502, Count: 1000})
	h.runFailing(demoInput(), "could not read the input (get_pull_request)")

	require.Equal(t, readTries, log.attemptCount(getPullActivity))
	require.Equal(t, 10, readTries, "docs/operations.md: up to 10 tries")
	require.Equal(t, []time.Duration{
		time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
		30 * time.Second, 30 * time.Second, 30 * time.Second, 30 * time.Second,
	}, tryGaps(log, getPullActivity))
	st := stepOfTool(t, h.snapshot(), api.ToolGetPullRequest)
	require.Equal(t, api.StepFailed, st.Status)
	require.Contains(t, st.Error, "502")
	require.Equal(t, 0, h.markedComments())
}

// failingFrom is the offline reviewer whose calls from the from-th on fail
// with err.
type failingFrom struct {
	model.Model
	from  int64
	err   error
	calls atomic.Int64
}

func (*failingFrom) AnswersAtOnce() bool { return true }

func (f *failingFrom) Next(ctx context.Context, conversation []api.Message, tools []api.ToolSpec) (api.ModelDecision, error) {
	if f.calls.Add(1) >= f.from {
		return api.ModelDecision{}, f.err
	}
	return f.Model.Next(ctx, conversation, tools)
}

// A model call that keeps failing is tried eight times in all
// (docs/architecture.md), its local first try included, on
// modelCallOptions' backoff: 1 s, doubling, at most a minute apart. The
// tries after the local one keep that schedule as if the first had been
// the activity's own.
func TestAModelCallThatKeepsFailingIsTriedEightTimesInAllOnTheDoublingBackoff(t *testing.T) {
	h, _ := newModelHarness(t, &failingFrom{Model: offline.NewReviewer(), from: 2, err: errors.New("connection reset by peer")})
	log := h.logCommands()
	h.runFailing(demoInput(), "model call failed")

	policy := modelCallOptions("acme/widgets#1", 2).RetryPolicy
	require.EqualValues(t, 8, policy.MaximumAttempts, "docs/architecture.md: eight tries in all")
	require.Equal(t, 1+int(policy.MaximumAttempts), log.attemptCount(api.ActivityModelNext), "the first call once, the second eight times")
	var gaps []time.Duration
	for i := 1; i < log.attemptCount(api.ActivityModelNext)-1; i++ {
		gaps = append(gaps, modelAttemptGap(log, i))
	}
	require.Equal(t, []time.Duration{
		time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 32 * time.Second, time.Minute,
	}, gaps)
	require.Equal(t, []string{
		"Ask the model for the next step of the run on acme/widgets#1 (call 1)",
		"Ask the model for the next step of the run on acme/widgets#1 (call 2)",
	}, log.activitySummaries(api.ActivityModelNext), "one activity carries the tries after the local one")
	steps := modelSteps(h.snapshot())
	require.Len(t, steps, 2)
	require.Equal(t, api.StepFailed, steps[1].Status)
	require.Contains(t, steps[1].Error, "connection reset by peer")
	require.Equal(t, 0, h.markedComments())
}

// How soon a call whose worker died is given up: a model call after four of
// ModelNext's heartbeats are missed, not its 5-minute timeout; an action's
// attempt or look after api.ActionHeartbeatTimeout. Each is what
// docs/operations.md tells an operator, and leaves a live call room for
// several heartbeats, so that a loaded worker does not time out its own
// live calls (issue 32, item 4).
func TestEachCallIsGivenUpOnAfterTheHeartbeatTimeoutTheOperationsGuideStates(t *testing.T) {
	raw, err := os.ReadFile("../docs/operations.md")
	require.NoError(t, err)
	guide := string(raw)
	seconds := func(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

	for name, opts := range map[string]workflow.ActivityOptions{
		"a model call":                   modelCallOptions("acme/widgets#1", 1),
		"a model call's tries after one": modelRetryOptions("acme/widgets#1", 2),
	} {
		require.Equal(t, 20*time.Second, opts.HeartbeatTimeout, name)
		require.Equal(t, 4*api.ModelHeartbeatInterval, opts.HeartbeatTimeout, "%s: four heartbeats", name)
		require.Less(t, opts.HeartbeatTimeout, opts.StartToCloseTimeout, "%s: a dead worker is noticed before the call's timeout", name)
	}
	require.Contains(t, guide, fmt.Sprintf("`ModelNext` heartbeats every %s and the workflow sets a %s heartbeat timeout",
		seconds(api.ModelHeartbeatInterval), seconds(modelCallOptions("", 1).HeartbeatTimeout)))

	for name, opts := range map[string]workflow.ActivityOptions{
		"an attempt": attemptActivityOptions(api.ToolCreateIssueComment, "alice", "acme/widgets#1", "run:5", 1, time.Minute),
		"a look":     reconcileOptions(api.ToolCreateIssueComment, "acme/widgets#1", "run:5", time.Minute),
	} {
		require.Equal(t, api.ActionHeartbeatTimeout, opts.HeartbeatTimeout, name)
		require.GreaterOrEqual(t, opts.HeartbeatTimeout, 4*api.ActionHeartbeatInterval, "%s: room for several heartbeats", name)
	}
	require.Contains(t, guide, fmt.Sprintf("| heartbeat timeout of an attempt or look | %s |", seconds(api.ActionHeartbeatTimeout)))
	require.Contains(t, guide, fmt.Sprintf("| heartbeat interval of an attempt or look | %d ms |", api.ActionHeartbeatInterval.Milliseconds()))
}
