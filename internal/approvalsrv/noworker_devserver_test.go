package approvalsrv

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/runclient"
)

// A real run waits for approval and its worker stops: the signed API
// records the approval from the run's last known state (its memo), says
// so, and the worker started afterwards applies it.
func TestSignedApproveWithNoWorkerIsRecordedAndTheNextWorkerAppliesItOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	const queue = "approvalsrv-noworker"
	stack := testkit.StartStack(t, testkit.StackOptions{TaskQueue: queue + "-idle"})
	run, action := stack.WaitingRunWithNoWorker(t, queue)
	runs := runclient.New(stack.Client(), runclient.Options{CallTimeout: 30 * time.Second, PrecheckTimeout: time.Second})
	h := serve(t, testConfig(), Options{Runs: runs, Now: time.Now})

	path := "/v1/runs/" + run.GetID() + "/actions/" + action.ID + "/decision"
	resp := h.signedPost(path, decisionBody(t, "approve", "alice", "", "no-worker-1"), time.Now())

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	reply := replyOf(t, resp)
	require.Equal(t, runclient.RecordedNote, reply["status"])
	require.True(t, strings.HasPrefix(reply["lastKnown"], "run "+run.GetID()+" was last known waiting_for_user"), reply["lastKnown"])
	stack.StartWorker(t, queue, nil)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, run).Status)
	snap := untilSnapshot(t, runs, run.GetID(), ended)
	require.Equal(t, api.ActionApproved, snap.Actions[0].State)
	require.Equal(t, "alice", snap.Actions[0].DecidedBy)
}
