package runview

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/agentrun/agentrun/api"
)

// retryingRead is the pending activity of a pull request read whose second
// try failed and whose third waits for its backoff.
func retryingRead() *workflowpb.PendingActivityInfo {
	return &workflowpb.PendingActivityInfo{
		ActivityId: "7",
		State:      enumspb.PENDING_ACTIVITY_STATE_SCHEDULED,
		Attempt:    3,
		LastFailure: &failurepb.Failure{Message: "get pull request acme/widgets#1: GET http://127.0.0.1:9090/repos/acme/widgets/pulls/1:\n" +
			"502 Bad Gateway []"},
		NextAttemptScheduleTime: timestamppb.New(time.Date(2026, 11, 30, 2, 37, 19, 0, time.UTC)),
	}
}

func TestStatusOfAReadBeingRetriedShowsTheTryAndItsLastErrorGolden(t *testing.T) {
	snap := loadSnapshot(t, "snapshot_retrying.json")
	tries := TriesByStep(snap.Steps, []*workflowpb.PendingActivityInfo{retryingRead()})
	var out bytes.Buffer

	require.NoError(t, Status(&out, snap.Run.ID, snap, tries))

	requireGolden(t, "status_retrying", out.Bytes())
}

func TestTriesAreShownOnlyWhenATryFailedAndTheStepIsClear(t *testing.T) {
	snap := loadSnapshot(t, "snapshot_retrying.json")
	firstTry := &workflowpb.PendingActivityInfo{ActivityId: "7", Attempt: 1}
	twoRunning := append([]api.AgentStep(nil), snap.Steps...)
	twoRunning[0].Status = api.StepRunning

	require.Contains(t, TriesByStep(snap.Steps, []*workflowpb.PendingActivityInfo{retryingRead()}), "step-2")
	require.Empty(t, TriesByStep(snap.Steps, []*workflowpb.PendingActivityInfo{firstTry}), "a first try has nothing to show")
	require.Empty(t, TriesByStep(snap.Steps, nil))
	require.Empty(t, TriesByStep(twoRunning, []*workflowpb.PendingActivityInfo{retryingRead()}), "two steps in flight: no guessing")
	require.Empty(t, TriesByStep(snap.Steps, []*workflowpb.PendingActivityInfo{retryingRead(), retryingRead()}))
}

func TestARetriedReadCountsItsLocalFirstTry(t *testing.T) {
	snap := loadSnapshot(t, "snapshot_retrying.json")
	retry := retryingRead()
	// The server's activity of a read's tries after the first, local one:
	// its attempt 2 is the read's third try.
	retry.ActivityId = api.StepActivityID("step-2", api.ReadRetry, 2)
	retry.Attempt = 2

	tries := TriesByStep(snap.Steps, []*workflowpb.PendingActivityInfo{retry})

	require.Equal(t, int32(3), tries["step-2"].Attempt)
	require.Contains(t, tries["step-2"].LastError, "502 Bad Gateway")
}
