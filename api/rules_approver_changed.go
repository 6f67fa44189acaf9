//go:build rulechange

package api

// sameApprover, in a build with the rulechange tag, matches logins byte for
// byte. No production build sets the tag: it exists so that `make test` can
// change one rule and see both sides of it follow (rules_approver.go).
func sameApprover(a, who string) bool { return a == who }
