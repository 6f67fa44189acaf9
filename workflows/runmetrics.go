// This file is a run's own metrics (their names are in package api),
// counted at its transitions through workflow.GetMetricsHandler: the SDK
// drops them while a workflow task replays, so each transition counts once
// however often the history is replayed, and emitting them adds no command
// to the history. Every metric is tagged with the run's agent.

package workflows

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

func handler(ctx workflow.Context, agent string) client.MetricsHandler {
	return workflow.GetMetricsHandler(ctx).WithTags(map[string]string{"agent": agent})
}

// countRun counts one of a run's moments: a new run (a run continued as new is
// not one), a pending action created.
func countRun(ctx workflow.Context, agent, metric string) {
	handler(ctx, agent).Counter(metric).Inc(1)
}

// countRunStatus counts a run's end by its final status.
func countRunStatus(ctx workflow.Context, agent string, to api.RunStatus) {
	if to.IsTerminal() {
		handler(ctx, agent).WithTags(map[string]string{"status": string(to)}).Counter(api.MetricRunsEnded).Inc(1)
	}
}

// countActionState counts a decision (decision=approve|reject) with the time the
// action waited for it, or an expiry; a run cancelled while waiting expires
// its action too.
func countActionState(ctx workflow.Context, agent string, pa *api.PendingAction, to api.ActionState) {
	m := handler(ctx, agent)
	switch to {
	case api.ActionApproved, api.ActionRejected:
		decision := api.DecisionApprove
		if to == api.ActionRejected {
			decision = api.DecisionReject
		}
		m = m.WithTags(map[string]string{"decision": decision})
		m.Counter(api.MetricApprovalsDecided).Inc(1)
		m.Timer(api.MetricApprovalLatency).Record(workflow.Now(ctx).Sub(pa.CreatedAt))
	case api.ActionExpired:
		m.Counter(api.MetricApprovalsExpired).Inc(1)
	}
}

// countReconciliation counts one look for an unknown outcome by what it found
// (found, not_created, cannot_tell; anything else is cannot_tell, as the run
// treats it).
func countReconciliation(ctx workflow.Context, agent, outcome string) {
	if outcome != api.ReconcileFound && outcome != api.ReconcileNotCreated {
		outcome = api.ReconcileCannotTell
	}
	handler(ctx, agent).WithTags(map[string]string{"outcome": outcome}).Counter(api.MetricReconciliations).Inc(1)
}
