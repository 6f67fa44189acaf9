package approvalsrv

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Look-alikes of the approvers "sam" and "kate": a long s, and a Kelvin sign
// for the K. Unicode case folding takes both for the approver.
const (
	longSam    = "\u017Fam"
	kelvinKate = "\u212Aate"
)

// The signed API names its approver in the body: a look-alike of a listed
// approver is not that approver, and nothing is sent.
func TestSignedDecisionByALookAlikeOfAnApproverAnswers403AndSendsNothing(t *testing.T) {
	h := waitingHarness(t, nil, "sam", "kate")

	for _, who := range []string{longSam, kelvinKate} {
		resp := h.signedPost(decisionPath, decisionBody(t, "approve", who, "", "req-"+who), testNow)

		require.Equal(t, http.StatusForbidden, resp.StatusCode, who)
		require.Contains(t, replyOf(t, resp)["error"], "is not an approver of this run", who)
	}
	require.Empty(t, h.runs.approvalSignals())
}

// The page's user is the login proxy's: a look-alike there is no GitHub
// login at all, so the page refuses it before it reads or decides anything.
func TestPageIdentityThatIsNoGitHubLoginAnswers400AndReadsNothing(t *testing.T) {
	h := waitingHarness(t, nil, "sam", "kate")

	for _, who := range []string{longSam, kelvinKate, "sam@example.com", "-sam", "s--am", "a234567890123456789012345678901234567890"} {
		for _, path := range []string{"/", "/runs/run-1", "/runs/run-1/events", "/runs"} {
			resp := h.do(http.MethodGet, path, nil, map[string]string{"X-Forwarded-User": who})
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s as %q", path, who)
		}
		b := h.browser(map[string]string{"X-Forwarded-User": who})
		post := b.submit(decisionPagePath, map[string][]string{"decision": {"approve"}, "requestId": {"r-1"}, "csrf": {"x"}}, nil)
		require.Equal(t, http.StatusBadRequest, post.StatusCode, who)
	}
	snapshots, events, _, listings := h.runs.counts()
	require.Zero(t, snapshots+events+listings, "a refused identity reads no run")
	require.Empty(t, h.runs.approvalSignals())
}

// The signal names the person the channel authenticated, spelled as they
// are, not the approver list's entry that matched them: the run's record
// says who decided.
func TestDecisionForwardsTheAuthenticatedNameNotTheListsSpelling(t *testing.T) {
	h := waitingHarness(t, nil, "Sam")
	b := h.browser(map[string]string{"X-Forwarded-User": "sAM"})
	_, form := b.openRun("run-1")
	form.Set("decision", "approve")

	resp := b.submit(decisionPagePath, form, nil)

	require.Equal(t, http.StatusAccepted, resp.StatusCode)
	signals := h.runs.approvalSignals()
	require.Len(t, signals, 1)
	require.Equal(t, "sAM", signals[0].Approver)
}

// The per-person cap on event streams counts a login whatever its case:
// "ALICE" is alice, as GitHub says.
func TestStreamCapCountsALoginWhateverItsCase(t *testing.T) {
	h := waitingHarness(t, nil)
	h.server.streams.SetCaps(10, 2)
	as := func(user string) map[string]string { return map[string]string{"X-Forwarded-User": user} }

	require.Equal(t, http.StatusOK, h.get("/runs/run-1/events", as("alice")).StatusCode)
	require.Equal(t, http.StatusOK, h.get("/runs/run-1/events", as("Alice")).StatusCode)
	third := h.get("/runs/run-1/events", as("ALICE"))

	require.Equal(t, http.StatusTooManyRequests, third.StatusCode)
}
