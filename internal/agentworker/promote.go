package agentworker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
)

// promotePollEvery is how often PromoteFirstVersion looks again while the
// server has not yet registered the version its worker polls as.
const promotePollEvery = 200 * time.Millisecond

// Routing is where a deployment sends new runs, as PromoteFirstVersion left it.
type Routing struct {
	// Promoted is true when this call made the version current.
	Promoted bool
	// Current is the deployment's current version; nil while new runs go to
	// unversioned workers.
	Current *worker.WorkerDeploymentVersion
	// Previous is the version that was current before this call promoted
	// another; its pinned runs stay on it.
	Previous *worker.WorkerDeploymentVersion
}

// Serves reports whether new runs go to d.
func (r Routing) Serves(d Deployment) bool {
	return r.Current != nil && *r.Current == d.version()
}

// PromoteFirstVersion makes the version of opts the deployment's current
// version if the deployment has never had one, and otherwise changes
// nothing. Call it once the worker of opts has started: the server learns of
// a version from its polls, and this waits until it has seen both the
// workflow and the activity side of opts.TaskQueue polled.
//
// A versioned worker gets no new runs until its version is current. For the
// first version of a deployment (a new cluster, the first versioned deploy,
// a test's dev server) nobody else can decide that, so the worker does.
// Every later rollout is the operator's choice (`temporal worker deployment
// set-current-version`), and so is a deployment sent back to unversioned
// workers: its routing has been changed, and this leaves it alone.
func PromoteFirstVersion(ctx context.Context, c client.Client, opts WorkerOptions) (Routing, error) {
	d := opts.Deployment
	if !d.Pinned {
		return Routing{}, errors.New("promote a deployment version: the worker is unversioned (AGENT_VERSIONING=off)")
	}
	handle := c.WorkerDeploymentClient().GetHandle(d.Name)
	for {
		desc, err := handle.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		var notFound *serviceerror.NotFound
		switch {
		case errors.As(err, &notFound):
			// The deployment appears with its first version's first poll.
		case err != nil:
			return Routing{}, fmt.Errorf("describe worker deployment %s: %w", d.Name, err)
		case touched(desc.Info.RoutingConfig):
			return Routing{Current: desc.Info.RoutingConfig.CurrentVersion}, nil
		default:
			polled, err := VersionPolled(ctx, c, opts)
			if err != nil {
				return Routing{}, err
			}
			if polled {
				routing, retry, err := setCurrent(ctx, handle, d, desc.ConflictToken)
				if !retry {
					return routing, err
				}
			}
		}
		select {
		case <-ctx.Done():
			return Routing{}, fmt.Errorf("wait for worker deployment version %s/%s to register: %w", d.Name, d.BuildID, ctx.Err())
		case <-time.After(promotePollEvery):
		}
	}
}

// VersionPolled reports whether the server has registered the version of
// opts with both the workflow and the activity side of opts.TaskQueue. Until
// it has, setting the version current would leave one side of the queue
// without it (the server refuses that, once a current version exists).
func VersionPolled(ctx context.Context, c client.Client, opts WorkerOptions) (bool, error) {
	d := opts.Deployment
	desc, err := c.WorkerDeploymentClient().GetHandle(d.Name).DescribeVersion(ctx,
		client.WorkerDeploymentDescribeVersionOptions{BuildID: d.BuildID})
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("describe worker deployment version %s/%s: %w", d.Name, d.BuildID, err)
	}
	seen := map[client.TaskQueueType]bool{}
	for _, q := range desc.Info.TaskQueuesInfos {
		if q.Name == opts.TaskQueue {
			seen[q.Type] = true
		}
	}
	return seen[client.TaskQueueTypeWorkflow] && seen[client.TaskQueueTypeActivity], nil
}

// touched reports whether anyone has ever routed the deployment's runs: a
// current or ramping version, or a current version set back to unversioned.
func touched(rc client.WorkerDeploymentRoutingConfig) bool {
	return rc.CurrentVersion != nil || rc.RampingVersion != nil ||
		!rc.CurrentVersionChangedTime.IsZero() || !rc.RampingVersionChangedTime.IsZero()
}

// setCurrent sets d current unless the deployment changed since the
// description its conflict token comes from; then retry is true and the
// caller looks again.
func setCurrent(ctx context.Context, handle client.WorkerDeploymentHandle, d Deployment, token []byte) (routing Routing, retry bool, err error) {
	_, err = handle.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{
		BuildID: d.BuildID, ConflictToken: token,
	})
	var conflict *serviceerror.FailedPrecondition
	if errors.As(err, &conflict) {
		return Routing{}, true, nil
	}
	if err != nil {
		return Routing{}, false, fmt.Errorf("set worker deployment %s's current version to %s: %w", d.Name, d.BuildID, err)
	}
	v := d.version()
	return Routing{Promoted: true, Current: &v}, false, nil
}

// PromoteAfterReplay makes the version of opts the deployment's current
// version (AGENT_PROMOTE=on-start), whoever routed the deployment before,
// once the server has seen its worker poll both sides of opts.TaskQueue and
// a sample of the open runs that promotion moves onto it replays on it.
// Those are the runs pinned to no build (unversioned workers' runs, on the
// first versioned deploy): the runs pinned to the previous current version
// stay on it, so their replay is checked only before an operator moves them
// (`worker replay-check --from-build`). When a sampled run does not replay,
// nothing is changed and the error is a *ReplayFailedError naming the runs.
func PromoteAfterReplay(ctx context.Context, c client.Client, opts WorkerOptions, check ReplayCheck, sample int) (Routing, error) {
	d := opts.Deployment
	if !d.Pinned {
		return Routing{}, errors.New("promote a deployment version: the worker is unversioned (AGENT_VERSIONING=off)")
	}
	if err := waitUntilPolled(ctx, c, opts); err != nil {
		return Routing{}, err
	}
	handle := c.WorkerDeploymentClient().GetHandle(d.Name)
	mine := d.version()
	for {
		desc, err := handle.Describe(ctx, client.WorkerDeploymentDescribeOptions{})
		if err != nil {
			return Routing{}, fmt.Errorf("describe worker deployment %s: %w", d.Name, err)
		}
		current := desc.Info.RoutingConfig.CurrentVersion
		if current != nil && *current == mine {
			return Routing{Current: current}, nil
		}
		report, err := check.Run(ctx, ReplayScope{TaskQueue: opts.TaskQueue, Sample: sample, UnpinnedOnly: true})
		if err != nil {
			return Routing{Current: current}, fmt.Errorf("replay the open runs before making %s/%s current: %w", d.Name, d.BuildID, err)
		}
		if err := report.Err(); err != nil {
			return Routing{Current: current}, err
		}
		routing, retry, err := setCurrent(ctx, handle, d, desc.ConflictToken)
		if !retry {
			routing.Previous = current
			return routing, err
		}
	}
}

// waitUntilPolled waits until VersionPolled says yes.
func waitUntilPolled(ctx context.Context, c client.Client, opts WorkerOptions) error {
	for {
		polled, err := VersionPolled(ctx, c, opts)
		if err != nil {
			return err
		}
		if polled {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for worker deployment version %s/%s to register: %w", opts.Deployment.Name, opts.Deployment.BuildID, ctx.Err())
		case <-time.After(promotePollEvery):
		}
	}
}
