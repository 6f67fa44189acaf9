package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit/standalone"
)

// The run takes who may decide and who may cancel from api (IsApprover,
// MayCancel), never from a copy. These tests expect whatever api says, so
// `go test -tags rulechange`, which swaps api's approver rule for an exact
// match (api/rules_approver_changed.go), runs them against another rule: a
// copy of the rule here would then disagree and fail them. The approval
// server's twin is internal/approvalsrv/rules_follow_test.go.

func TestTheRunDecidesWhoMayApproveByAPIsRule(t *testing.T) {
	for _, c := range standalone.ApproverRuleCases {
		t.Run(c.Approver+"/"+c.Sender, func(t *testing.T) {
			approvers := []string{c.Approver}
			h, ignored := approvalsFrom(t, approvers, c.Sender)
			snap := h.snapshot()
			if api.IsApprover(approvers, c.Sender) {
				require.Empty(t, ignored)
				require.Equal(t, api.ActionApproved, snap.PendingAction.State)
				require.Equal(t, c.Sender, snap.PendingAction.DecidedBy)
				return
			}
			require.Len(t, ignored, 1)
			require.Equal(t, api.RefuseApprover(approvers, c.Sender), ignored[0].Detail)
			require.Equal(t, api.ActionExpired, snap.PendingAction.State)
		})
	}
}

func TestTheRunDecidesWhoMayCancelByAPIsRule(t *testing.T) {
	for _, c := range standalone.ApproverRuleCases {
		t.Run(c.Approver+"/"+c.Sender, func(t *testing.T) {
			h := newHarness(t)
			in := demoInput() // requested by carol
			in.Approvers = []string{c.Approver}
			h.whenWaiting(time.Minute, func(string) { h.cancelAs(c.Sender, "not needed", "c-1") })
			h.run(in)
			require.NoError(t, h.env.GetWorkflowError())
			snap := h.snapshot()
			why, needsWriter := api.MayCancel(snap.Run, c.Sender)
			require.False(t, needsWriter, "the run names an approver")
			if why == "" {
				requireCancelledBy(t, snap, c.Sender)
				return
			}
			require.Equal(t, []string{why}, ignoredDetails(h.events()))
			require.Nil(t, snap.Cancel)
		})
	}
}
