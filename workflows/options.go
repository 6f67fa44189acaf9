// This file is the options of every activity a run schedules, one
// name each: how long an attempt may take, how Temporal retries it, and the
// summary the Temporal UI shows for it. They are plain data of the run, so
// each is a function of what it names.

package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
)

// permissionCheckTimeout bounds one attempt of the permission check.
const permissionCheckTimeout = 30 * time.Second

// retryRead retries a call that only reads: doubling from a second, at
// most 30 seconds apart.
func retryRead(attempts int32, nonRetryable ...string) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: attempts,
		NonRetryableErrorTypes: nonRetryable,
	}
}

// modelCallOptions: a model call may take minutes, and only a refusal or a bad tool
// call is final. call counts the run's model calls so far.
func modelCallOptions(target string, call int) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		// A worker that dies mid-call is noticed within this, not 5 minutes.
		HeartbeatTimeout: 4 * api.ModelHeartbeatInterval,
		Summary:          fmt.Sprintf("Ask the model for the next step of the run on %s (call %d)", target, call),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8,
			NonRetryableErrorTypes: modelNonRetryable,
		},
	}
}

// modelNonRetryable: only a refusal or a bad tool call is final.
var modelNonRetryable = []string{api.ErrTypeModelRejected, api.ErrTypeBadToolCall}

// modelCallFirstTryOptions: the first try of a model call whose model has nothing
// to stream is a local activity, on modelCallOptions's timeout. A worker that dies
// in it fails its workflow task, and the task's retry, on any worker, asks
// again. A try that fails and may be retried goes on as modelRetryOptions.
func modelCallFirstTryOptions(target string, call int) workflow.LocalActivityOptions {
	opts := modelCallOptions(target, call)
	return workflow.LocalActivityOptions{
		StartToCloseTimeout: opts.StartToCloseTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             opts.Summary,
	}
}

// modelRetryOptions: the tries of a model call after a local first try, started
// readRetryDelay after it (or at its Retry-After), as an activity the server
// retries and heartbeats keep alive. Its backoff goes on from the first
// try's, so the tries keep modelCallOptions's schedule and its number of attempts.
func modelRetryOptions(target string, call int) workflow.ActivityOptions {
	opts := modelCallOptions(target, call)
	opts.RetryPolicy.MaximumAttempts--
	opts.RetryPolicy.InitialInterval = time.Duration(opts.RetryPolicy.BackoffCoefficient * float64(readRetryDelay))
	return opts
}

// A read is tried readTries times at most, with backoff, until its tool
// proves it cannot succeed (readNonRetryable).
const readTries = 10

// readRetryDelay is the wait between a read's first try and its second:
// retryRead's first backoff.
const readRetryDelay = time.Second

var readNonRetryable = []string{api.ErrTypeGitHubRejected, api.ErrTypeToolRejected}

// readFirstTryOptions: a read's first try is a local activity, run by the worker
// that runs the workflow task: its result is a marker in that task's
// completion, with no round trip through the server and no workflow task
// of its own. A try that fails and may be retried goes on as Read.
func readFirstTryOptions(tool, target string, timeout time.Duration) workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             readSummary(tool, target),
	}
}

// readRetryOptions: the tries of a read after its first, started readRetryDelay after
// it, as an activity the server retries and Describe shows (the status
// view's tries). Its backoff goes on from the first try's, so the tries
// keep the schedule of one activity of readTries attempts: 1 s, 2 s, 4 s …
// at most 30 s apart.
func readRetryOptions(tool, target string, timeout time.Duration) workflow.ActivityOptions {
	retry := retryRead(readTries-1, readNonRetryable...)
	retry.InitialInterval = time.Duration(retry.BackoffCoefficient * float64(readRetryDelay))
	return workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         retry,
		Summary:             readSummary(tool, target),
	}
}

func readSummary(tool, target string) string { return fmt.Sprintf("Read %s of %s", tool, target) }

// attemptActivityOptions: one attempt of an action. Temporal never retries it blindly;
// reconcile decides whether the same operationKey goes round again.
// approvedBy is "" for an action that asks nobody.
func attemptActivityOptions(tool, approvedBy, target, operationKey string, attempt int, timeout time.Duration) workflow.ActivityOptions {
	what := tool
	if approvedBy != "" {
		what = fmt.Sprintf("%s %s approved", tool, approvedBy)
	}
	return workflow.ActivityOptions{
		// Measured from scheduling, the attempt's deadline is bounded by
		// a time the run knows (see resendNotBefore): no request of the
		// attempt is sent after it, wherever its worker is.
		ScheduleToCloseTimeout: timeout,
		StartToCloseTimeout:    timeout,
		HeartbeatTimeout:       api.ActionHeartbeatTimeout,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:                fmt.Sprintf("Run %s on %s (operationKey %s, attempt %d)", what, target, operationKey, attempt),
	}
}

// reconcileOptions: the look for an operationKey's effect only reads, so it is
// retried; after its last attempt the run cannot tell and asks an operator.
func reconcileOptions(tool, target, operationKey string, timeout time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    api.ActionHeartbeatTimeout,
		RetryPolicy:         retryRead(5),
		Summary:             fmt.Sprintf("Look on %s for the effect of %s under operationKey %s", target, tool, operationKey),
	}
}

// permissionCheckOptions: a check GitHub refuses is final; the decision it could
// not confirm is not applied.
func permissionCheckOptions(who, repo, actionID string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: permissionCheckTimeout,
		RetryPolicy:         retryRead(5, api.ErrTypeGitHubRejected),
		Summary:             fmt.Sprintf("Check %s's permission on %s (decision on %s)", who, repo, actionID),
	}
}
