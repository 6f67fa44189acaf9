package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// inboxMemo is the run's api.MemoInbox: its waiting actions without their
// inputs (the inbox shows the preview and the input's hash, and a memo is
// copied into visibility on every write), and the run's fields beside them.
func inboxMemo(cp *api.Checkpoint) api.InboxMemo {
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

// waitingCount counts the run's actions still waiting for a decision.
func waitingCount(cp *api.Checkpoint) int {
	n := 0
	for _, pa := range cp.Actions {
		if pa.State == api.ActionWaiting {
			n++
		}
	}
	return n
}

// publishInbox writes inboxMemo into the run's memo when the run waits for
// approval. It is the one memo write of a wait: a run that moves on leaves
// it, as the inbox lists only the runs whose AgentRunStatus says they wait,
// and the next wait rewrites it.
func publishInbox(ctx workflow.Context, cp *api.Checkpoint) {
	if cp.Run.Status != api.RunWaitingForUser {
		return
	}
	if err := workflow.UpsertMemo(ctx, map[string]any{api.MemoInbox: inboxMemo(cp)}); err != nil {
		workflow.GetLogger(ctx).Warn("upsert the inbox memo failed", "error", err)
	}
}

// publishStanding writes the run's api.StandingOfRun into its memo
// (api.MemoStanding) once it ends, in the words every view says, and the
// comments it posted (api.MemoPosted), in the same write.
func publishStanding(ctx workflow.Context, cp *api.Checkpoint) {
	if !cp.Run.Status.IsTerminal() {
		return
	}
	o := outcomeOf(cp)
	memo := map[string]any{
		api.MemoStanding: api.StandingOfOutcome(cp.Run, o, cp.Cancel),
		api.MemoPosted:   api.PostedComments(o.Posted),
	}
	if err := workflow.UpsertMemo(ctx, memo); err != nil {
		workflow.GetLogger(ctx).Warn("upsert the standing memo failed", "error", err)
	}
}
