package approvalsrv

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// The server's early checks of who may decide and who may cancel are api's
// rules (IsApprover, MayCancel), never a copy. These tests expect whatever
// api says, so `go test -tags rulechange`, which swaps api's approver rule
// for an exact match (api/rules_approver_changed.go), runs them against
// another rule: a copy of the rule here would then disagree and fail them.
// The workflow's twin is workflows/rules_follow_test.go.

func TestTheServerDecidesWhoMayApproveByAPIsRule(t *testing.T) {
	for _, c := range standalone.ApproverRuleCases {
		t.Run(c.Approver+"/"+c.Sender, func(t *testing.T) {
			approvers := []string{c.Approver}
			h := waitingHarness(t, nil, approvers...)
			resp := h.signedPost(decisionPath, decisionBody(t, "approve", c.Sender, "", "req-1"), testNow)
			if api.IsApprover(approvers, c.Sender) {
				require.Equal(t, http.StatusAccepted, resp.StatusCode)
				require.Len(t, h.runs.approvalSignals(), 1)
				return
			}
			require.Equal(t, http.StatusForbidden, resp.StatusCode)
			require.Equal(t, api.RefuseApprover(approvers, c.Sender), replyOf(t, resp)["error"])
			require.Empty(t, h.runs.approvalSignals())
		})
	}
}

func TestTheServerDecidesWhoMayCancelByAPIsRule(t *testing.T) {
	for _, c := range standalone.ApproverRuleCases {
		t.Run(c.Approver+"/"+c.Sender, func(t *testing.T) {
			h := newHarness(t, testConfig(), nil)
			snap := waitingRun(c.Approver)
			snap.Run.UserID = "carol"
			h.runs.put("run-1", snap)
			resp := h.signedPost(cancelPath, cancelBody(t, c.Sender, "not needed", "c-1"), testNow)
			why, needsWriter := api.MayCancel(snap.Run, c.Sender)
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
