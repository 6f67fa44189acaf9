package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
)

// The options of every activity a run schedules, one name each: how long an
// attempt may take, how Temporal retries it, and the summary the Temporal UI
// shows for it.

// permissionCheckTimeout bounds one attempt of the permission check.
const permissionCheckTimeout = 30 * time.Second

// retryGitHubRead retries a call that only reads GitHub: doubling from a
// second, at most 30 seconds apart.
func retryGitHubRead(attempts int32, nonRetryable ...string) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: attempts,
		NonRetryableErrorTypes: nonRetryable,
	}
}

// modelCallOptions: a model call may take minutes, and only a refusal or a
// bad tool call is final.
func (w *agentRun) modelCallOptions() workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		// A worker that dies mid-call is noticed within this, not 5 minutes.
		HeartbeatTimeout: 4 * activities.ModelHeartbeatInterval,
		Summary:          fmt.Sprintf("Ask the model for the next step of the review of %s (call %d)", w.Run.TargetRef(), w.ModelCalls()),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8,
			NonRetryableErrorTypes: []string{api.ErrTypeModelRejected, api.ErrTypeBadToolCall},
		},
	}
}

// readToolOptions: a read tool is retried with backoff until GitHub refuses it.
func (w *agentRun) readToolOptions(tool string) workflow.ActivityOptions {
	summary := tool + " on " + w.Run.TargetRef()
	switch tool {
	case api.ToolGetPullRequest:
		summary = "Read pull request " + w.Run.TargetRef()
	case api.ToolListPullRequestFiles:
		summary = "List the changed files of " + w.Run.TargetRef()
	}
	return workflow.ActivityOptions{
		StartToCloseTimeout: w.in.ToolTimeout,
		RetryPolicy:         retryGitHubRead(10, api.ErrTypeGitHubRejected),
		Summary:             summary,
	}
}

// createCommentOptions: one attempt. Temporal never retries a post blindly;
// reconcile decides whether the same operationKey goes round again.
func (w *agentRun) createCommentOptions(st *api.AgentStep) workflow.ActivityOptions {
	approvedBy := "someone"
	if pa := w.ActionForStep(st.ID); pa != nil && pa.DecidedBy != "" {
		approvedBy = pa.DecidedBy
	}
	return workflow.ActivityOptions{
		StartToCloseTimeout: w.in.ToolTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary: fmt.Sprintf("Post the comment %s approved on %s (operationKey %s, attempt %d)",
			approvedBy, w.Run.TargetRef(), st.OperationKey, st.Attempt),
	}
}

// findCommentOptions: the lookup of an operationKey only reads, so it is
// retried; after its last attempt the run cannot tell and asks an operator.
func (w *agentRun) findCommentOptions(st *api.AgentStep) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: w.in.ToolTimeout,
		RetryPolicy:         retryGitHubRead(5),
		Summary:             fmt.Sprintf("Look on %s for the comment of operationKey %s", w.Run.TargetRef(), st.OperationKey),
	}
}

// permissionCheckOptions: a check GitHub refuses is final; the decision it
// could not confirm is not applied.
func (w *agentRun) permissionCheckOptions(pa *api.PendingAction, who string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: permissionCheckTimeout,
		RetryPolicy:         retryGitHubRead(5, api.ErrTypeGitHubRejected),
		Summary:             fmt.Sprintf("Check %s's permission on %s (decision on %s)", who, w.in.Repo, pa.ID),
	}
}
