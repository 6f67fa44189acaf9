//go:build rulechange

package api

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheRuleChangeIsInEffect guards `make test`'s run with the rulechange
// tag: the rules_follow tests of the workflow and the approval server are
// worth something only if that run really judged by another rule.
func TestTheRuleChangeIsInEffect(t *testing.T) {
	require.False(t, IsApprover([]string{"Sam"}, "sam"), "the changed rule matches logins byte for byte")
	require.True(t, IsApprover([]string{"sam"}, "sam"))
	why, _ := MayCancel(Run{UserID: "carol", Approvers: []string{"Sam"}}, "sam")
	require.Equal(t, "sam may not cancel this run: only its requester or an approver may", why)
}
