package approvalsrv

import (
	"github.com/agentrun/agentrun/api"
)

// decisionMemoKey is the one rule for what makes two decisions "the same
// request": the run, the action, and the workflow's own RequestKey (channel,
// authenticated approver, requestId), so that nobody can replay or burn
// another person's requestId. runID is empty for a GitHub comment, whose
// action ID alone names the run.
func decisionMemoKey(runID, actionID string, in Decision, channel string) string {
	return runID + "\x00" + actionID + "\x00" + api.RequestKey(channel, in.Approver, in.RequestID)
}

// decisionMemoBody is what a repeat must ask for again to be a repeat.
func decisionMemoBody(in Decision) string {
	return in.Decision + "\x00" + in.Reason + "\x00" + in.ArgsHash + "\x00" + string(in.Args)
}

// resolveMemoBody is what a repeated resolve must ask for again.
func resolveMemoBody(req Resolve) string {
	return req.Decision + "\x00" + req.ExternalResourceID + "\x00" + req.By
}
