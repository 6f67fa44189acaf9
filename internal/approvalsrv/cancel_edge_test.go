package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

func TestACancelWithoutWhoSentItIsRefusedBeforeAnythingElse(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	resp := h.signedPost(cancelPath, cancelBody(t, "", "stop", "c-1"), testNow)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Equal(t, "missing field: by", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.cancelSignals())
	require.Zero(t, h.runs.reachCount(), "refused before the run is asked")
}

// A cancel of a run already cancelled (it still settles an action in
// flight) is answered so, and sends nothing more.
func TestACancelOfARunAlreadyCancelledSaysByWhomAndSendsNothing(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	snap := waitingRun("alice")
	snap.Run.Status = api.RunReconciling
	snap.Cancel = &api.Cancellation{By: "carol", Reason: "wrong pull request"}
	h.runs.put("run-1", snap)

	resp := h.signedPost(cancelPath, cancelBody(t, "alice", "stop", "c-1"), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, "already cancelled by carol", replyOf(t, resp)["status"])
	require.Empty(t, h.runs.cancelSignals())
}

// The signal's own failure is told as what it is: a run gone meanwhile has
// ended; an unreachable Temporal is worth trying again.
func TestACancelWhoseSignalFailsSaysWhy(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		code int
		want string
	}{
		"the run is gone":      {fmt.Errorf("fake: %w", errRunNotFound), http.StatusConflict, "the run has ended"},
		"temporal unreachable": {fmt.Errorf("fake: %w", errTemporalUnavailable), http.StatusServiceUnavailable, "temporal is unreachable; try again later"},
	} {
		t.Run(name, func(t *testing.T) {
			h := waitingHarness(t, nil, "alice")
			h.runs.mu.Lock()
			h.runs.cancelErr = tc.err
			h.runs.mu.Unlock()
			resp := h.signedPost(cancelPath, cancelBody(t, "alice", "stop", "c-1"), testNow)
			require.Equal(t, tc.code, resp.StatusCode)
			require.Equal(t, tc.want, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.cancelSignals())
		})
	}
}

type failingPermissions struct{}

func (failingPermissions) Permission(context.Context, string, string, string) (string, error) {
	return "", errors.New("GitHub answered 502")
}

type writers struct{}

func (writers) Permission(context.Context, string, string, string) (string, error) {
	return "write", nil
}

// On a run without approvers a writer may cancel; when GitHub cannot say
// whether the sender writes, the cancel is not sent, and the answer says
// to try again (never the internal error).
func TestAWritersCancelIsSentOnlyOnceGitHubSaysTheyWrite(t *testing.T) {
	h := waitingHarness(t, failingPermissions{})
	resp := h.signedPost(cancelPath, cancelBody(t, "bob", "superseded", "b-1"), testNow)
	require.Equal(t, http.StatusBadGateway, resp.StatusCode)
	require.Equal(t, "could not check the permission to cancel; try again later", replyOf(t, resp)["error"])
	require.Empty(t, h.runs.cancelSignals())

	h = waitingHarness(t, writers{})
	resp = h.signedPost(cancelPath, cancelBody(t, "bob", "superseded", "b-1"), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Equal(t, []api.CancelSignal{{By: "bob", Reason: "superseded", RequestID: "b-1", Channel: channelAPI}}, h.runs.cancelSignals())
}

func TestACancelWhoseReasonIsExactlyTheBoundIsSent(t *testing.T) {
	h := waitingHarness(t, nil, "alice")
	reason := strings.Repeat("é", api.MaxCancelReasonBytes/2)
	resp := h.signedPost(cancelPath, cancelBody(t, "alice", reason, "c-1"), testNow)
	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	resp = h.signedPost(cancelPath, cancelBody(t, "alice", reason+"x", "c-2"), testNow)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Len(t, h.runs.cancelSignals(), 1)
	require.Equal(t, reason, h.runs.cancelSignals()[0].Reason)
}
