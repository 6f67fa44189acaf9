//go:build !rulechange

package api

// sameApprover is how IsApprover compares an approver's login with who sent
// a decision or a cancel. The build tag rulechange swaps it for another rule
// (rules_approver_changed.go), so that a test run with that tag shows the
// workflow and the approval server both follow IsApprover rather than a
// copy of it; see rules_follow_test.go in workflows and internal/approvalsrv.
func sameApprover(a, who string) bool { return SameLogin(a, who) }
