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

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
)

// PermissionCheckTimeout bounds one attempt of the permission check.
const PermissionCheckTimeout = 30 * time.Second

// retryRead retries a call that only reads: doubling from a second, at
// most 30 seconds apart.
func retryRead(attempts int32, nonRetryable ...string) *temporal.RetryPolicy {
	return &temporal.RetryPolicy{
		InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: 30 * time.Second, MaximumAttempts: attempts,
		NonRetryableErrorTypes: nonRetryable,
	}
}

// ModelCall: a model call may take minutes, and only a refusal or a bad tool
// call is final. call counts the run's model calls so far.
func ModelCall(target string, call int) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: 5 * time.Minute,
		// A worker that dies mid-call is noticed within this, not 5 minutes.
		HeartbeatTimeout: 4 * activities.ModelHeartbeatInterval,
		Summary:          fmt.Sprintf("Ask the model for the next step of the run on %s (call %d)", target, call),
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 8,
			NonRetryableErrorTypes: modelNonRetryable,
		},
	}
}

// modelNonRetryable: only a refusal or a bad tool call is final.
var modelNonRetryable = []string{api.ErrTypeModelRejected, api.ErrTypeBadToolCall}

// ModelCallFirstTry: the first try of a model call whose model has nothing
// to stream is a local activity, on ModelCall's timeout. A worker that dies
// in it fails its workflow task, and the task's retry, on any worker, asks
// again. A try that fails and may be retried goes on as ModelRetry.
func ModelCallFirstTry(target string, call int) workflow.LocalActivityOptions {
	opts := ModelCall(target, call)
	return workflow.LocalActivityOptions{
		StartToCloseTimeout: opts.StartToCloseTimeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             opts.Summary,
	}
}

// ModelRetry: the tries of a model call after a local first try, started
// ReadRetryDelay after it (or at its Retry-After), as an activity the server
// retries and heartbeats keep alive. Its backoff goes on from the first
// try's, so the tries keep ModelCall's schedule and its number of attempts.
func ModelRetry(target string, call int) workflow.ActivityOptions {
	opts := ModelCall(target, call)
	opts.RetryPolicy.MaximumAttempts--
	opts.RetryPolicy.InitialInterval = time.Duration(opts.RetryPolicy.BackoffCoefficient * float64(ReadRetryDelay))
	return opts
}

// A read is tried readTries times at most, with backoff, until its tool
// proves it cannot succeed (readNonRetryable).
const readTries = 10

// ReadRetryDelay is the wait between a read's first try and its second:
// retryRead's first backoff.
const ReadRetryDelay = time.Second

var readNonRetryable = []string{api.ErrTypeGitHubRejected, api.ErrTypeToolRejected}

// ReadFirstTry: a read's first try is a local activity, run by the worker
// that runs the workflow task: its result is a marker in that task's
// completion, with no round trip through the server and no workflow task
// of its own. A try that fails and may be retried goes on as Read.
func ReadFirstTry(tool, target string, timeout time.Duration) workflow.LocalActivityOptions {
	return workflow.LocalActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:             readSummary(tool, target),
	}
}

// Read: the tries of a read after its first, started ReadRetryDelay after
// it, as an activity the server retries and Describe shows (the status
// view's tries). Its backoff goes on from the first try's, so the tries
// keep the schedule of one activity of readTries attempts: 1 s, 2 s, 4 s …
// at most 30 s apart.
func Read(tool, target string, timeout time.Duration) workflow.ActivityOptions {
	retry := retryRead(readTries-1, readNonRetryable...)
	retry.InitialInterval = time.Duration(retry.BackoffCoefficient * float64(ReadRetryDelay))
	return workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		RetryPolicy:         retry,
		Summary:             readSummary(tool, target),
	}
}

func readSummary(tool, target string) string { return fmt.Sprintf("Read %s of %s", tool, target) }

// ActionHeartbeatTimeout is how soon a worker that died inside an action's
// attempt or look is noticed: the activity records a heartbeat every
// activities.ActionHeartbeatInterval while its request is in flight, and
// the worker sends the latest at most every min(0.8 × this timeout, its
// throttle of activities.ModelWritingInterval), so the server must get one
// of them in time. At 1 s (two sends a window, 500 ms of slack) a worker
// whose cores were all busy timed out 80 of 500 of its own live looks; at
// 2 s (four sends, 1.5 s of slack) none of 500 (internal/bench
// heartbeat_test.go, docs/operations.md). Recovery after a SIGKILL waits
// this long before its look.
const ActionHeartbeatTimeout = 2 * time.Second

// Attempt: one attempt of an action. Temporal never retries it blindly;
// reconcile decides whether the same operationKey goes round again.
// approvedBy is "" for an action that asks nobody.
func Attempt(tool, approvedBy, target, operationKey string, attempt int, timeout time.Duration) workflow.ActivityOptions {
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
		HeartbeatTimeout:       ActionHeartbeatTimeout,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 1},
		Summary:                fmt.Sprintf("Run %s on %s (operationKey %s, attempt %d)", what, target, operationKey, attempt),
	}
}

// Reconcile: the look for an operationKey's effect only reads, so it is
// retried; after its last attempt the run cannot tell and asks an operator.
func Reconcile(tool, target, operationKey string, timeout time.Duration) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: timeout,
		HeartbeatTimeout:    ActionHeartbeatTimeout,
		RetryPolicy:         retryRead(5),
		Summary:             fmt.Sprintf("Look on %s for the effect of %s under operationKey %s", target, tool, operationKey),
	}
}

// PermissionCheck: a check GitHub refuses is final; the decision it could
// not confirm is not applied.
func PermissionCheck(who, repo, actionID string) workflow.ActivityOptions {
	return workflow.ActivityOptions{
		StartToCloseTimeout: PermissionCheckTimeout,
		RetryPolicy:         retryRead(5, api.ErrTypeGitHubRejected),
		Summary:             fmt.Sprintf("Check %s's permission on %s (decision on %s)", who, repo, actionID),
	}
}
