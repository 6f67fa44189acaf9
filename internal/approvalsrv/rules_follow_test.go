package approvalsrv

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
)

// The server's early checks of who may decide and who may cancel are api's
// rules (IsApprover, MayCancel), never a copy. These tests expect whatever
// api says, so `go test -tags rulechange`, which swaps api's approver rule
// for an exact match (api/rules_approver_changed.go), runs them against
// another rule: a copy of the rule here would then disagree and fail them.
// The workflow's twin is workflows/rules_follow_test.go.

// approverCases are approvers and a sender whose match depends on the rule:
// "Sam" and "sam" match under ASCII folding, not under the changed rule.
var approverCases = []struct{ approver, sender string }{
	{"sam", "sam"},
	{"Sam", "sam"},
	{"sam", "SAM"},
	{"sam", "ſam"}, // only Unicode folding makes it "sam"
	{"alice", "ali"},
}

func TestTheServerDecidesWhoMayApproveByAPIsRule(t *testing.T) {
	for _, c := range approverCases {
		t.Run(c.approver+"/"+c.sender, func(t *testing.T) {
			approvers := []string{c.approver}
			h := waitingHarness(t, nil, approvers...)
			resp := h.signedPost(decisionPath, decisionBody(t, "approve", c.sender, "", "req-1"), testNow)
			if api.IsApprover(approvers, c.sender) {
				require.Equal(t, http.StatusAccepted, resp.StatusCode)
				require.Len(t, h.runs.approvalSignals(), 1)
				return
			}
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
			require.Equal(t, api.RefuseApprover(approvers, c.sender), replyOf(t, resp)["error"])
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestTheServerDecidesWhoMayCancelByAPIsRule(t *testing.T) {
	for _, c := range approverCases {
		t.Run(c.approver+"/"+c.sender, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			snap := waitingRun(c.approver)
			snap.Run.UserID = "carol"
			h.runs.put("run-1", snap)
			resp := h.signedPost(cancelPath, cancelBody(t, c.sender, "not needed", "c-1"), testNow)
			why, needsWriter := api.MayCancel(snap.Run, c.sender)
			require.False(t, needsWriter, "the run names an approver")
			if why == "" {
				require.Equal(t, http.StatusAccepted, resp.StatusCode)
				require.Len(t, h.runs.cancelSignals(), 1)
				return
			}
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
			require.Equal(t, why, replyOf(t, resp)["error"])
			require.Empty(t, h.runs.cancelSignals())
		})
	}
}
