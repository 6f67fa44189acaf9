package workflows

import "github.com/agentrun/agentrun/api"

// The rules shared with the approval server live in package api, once; these
// names keep the workflow's code and tests reading as before.

// SameLogin is api.SameLogin.
func SameLogin(a, b string) bool { return api.SameLogin(a, b) }

// ResolveApplies is api.ResolveApplies.
func ResolveApplies(snap RunSnapshot, stepID string) bool { return api.ResolveApplies(snap, stepID) }

// RequestKey is api.RequestKey.
func RequestKey(channel, approver, requestID string) string {
	return api.RequestKey(channel, approver, requestID)
}

// StaticSummary is api.StaticSummary.
func StaticSummary(in RunInput) string { return api.StaticSummary(in) }
