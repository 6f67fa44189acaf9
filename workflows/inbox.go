package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// Inbox is the run's api.MemoInbox: its waiting actions without their
// inputs (the inbox shows the preview and the input's hash, and a memo is
// copied into visibility on every write), and the run's fields beside them.
func Inbox(cp *api.Checkpoint) api.InboxMemo {
	memo := api.InboxMemo{Run: cp.Run, Label: cp.Label, Actions: []api.PendingAction{}}
	for _, pa := range cp.Actions {
		if pa.State == api.ActionWaiting {
			a := *pa
			a.SafeInput = nil
			memo.Actions = append(memo.Actions, a)
		}
	}
	return memo
}

// Waiting counts the run's actions still waiting for a decision.
func Waiting(cp *api.Checkpoint) int {
	n := 0
	for _, pa := range cp.Actions {
		if pa.State == api.ActionWaiting {
			n++
		}
	}
	return n
}

// PublishInbox writes Inbox into the run's memo when the run waits for
// approval. It is the one memo write of a wait: a run that moves on leaves
// it, as the inbox lists only the runs whose AgentRunStatus says they wait,
// and the next wait rewrites it.
func PublishInbox(ctx workflow.Context, cp *api.Checkpoint) {
	if cp.Run.Status != api.RunWaitingForUser {
		return
	}
	if err := workflow.UpsertMemo(ctx, map[string]any{api.MemoInbox: Inbox(cp)}); err != nil {
		workflow.GetLogger(ctx).Warn("upsert the inbox memo failed", "error", err)
	}
}
