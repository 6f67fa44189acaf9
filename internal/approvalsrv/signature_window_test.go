package approvalsrv

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The window is symmetric: a caller whose clock runs exactly five minutes
// ahead is inside it, as one exactly five minutes behind is.
func TestSignedDecisionFromAClockExactlyFiveMinutesAheadIsAccepted(t *testing.T) {
	h := newHarness(t, testConfig(), nil)
	h.runs.put("run-1", waitingRun())

	resp := h.signedPost(decisionPath, decisionBody(t, "approve", "alice", "", "req-1"), testNow.Add(SignatureMaxSkew))

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	require.Len(t, h.runs.approvalSignals(), 1)
}

func TestSignatureWindowEndsOneSecondPastFiveMinutesEitherWay(t *testing.T) {
	stamp := func(offset time.Duration) string { return strconv.FormatInt(testNow.Add(offset).Unix(), 10) }

	require.NoError(t, checkTimestamp(stamp(-SignatureMaxSkew), testNow))
	require.NoError(t, checkTimestamp(stamp(SignatureMaxSkew), testNow))
	require.ErrorIs(t, checkTimestamp(stamp(-SignatureMaxSkew-time.Second), testNow), errStaleTimestamp)
	require.ErrorIs(t, checkTimestamp(stamp(SignatureMaxSkew+time.Second), testNow), errStaleTimestamp)
}
