package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

// approveAll approves every action of the run waiting for a person (as the
// run answers, or as it was last known when no worker answers), each
// bound to the input (argsHash) the run showed: as batches of up to
// api.MaxBatch when the run's agent takes them, else one signal per action.
// base carries the approver, reason and decision.
func (c *decideCommand) approveAll(ctx context.Context, runID string, base api.ApprovalSignal) error {
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	reach, err := reachOpenRun(ctx, rc, runID)
	if err != nil {
		return err
	}
	sigs := approveAllSignals(reach.Snapshot, base)
	if len(sigs) == 0 {
		return fmt.Errorf("run %s has no action waiting for approval", runID)
	}
	var errs []error
	for i, sig := range sigs {
		what := "action " + sig.ActionID
		if len(sig.Batch) > 0 {
			what = fmt.Sprintf("%d actions as one batch", len(sig.Batch)+1)
		}
		fmt.Fprintf(c.env.stdout, "approving %s\n", what)
		send := func(ctx context.Context, rc *runclient.Client, runID string, _ runclient.Reach) error {
			return rc.Decide(ctx, runID, sig)
		}
		if reach.Live && i > 0 {
			// The answer to this signal is looked for after the run's newest
			// event: the one before it has moved the run on.
			if reach, err = reachOpenRun(ctx, rc, runID); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		reaction, err := signalAndWatch(ctx, c.env, rc, runID, reach, send, func(ev api.Event) bool { return ev.Type == api.EventActionState })
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := runview.Reaction(c.env.stdout, reaction); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// approveAllSignals are the signals that approve the run's waiting actions,
// oldest first; each gets its own requestId.
func approveAllSignals(snap api.RunSnapshot, base api.ApprovalSignal) []api.ApprovalSignal {
	var refs []api.ActionRef
	for _, a := range snap.Actions {
		if a.State == api.ActionWaiting {
			refs = append(refs, api.ActionRef{ActionID: a.ID, ArgsHash: a.ArgsHash})
		}
	}
	size := 1
	if snap.Run.BatchApproval {
		size = api.MaxBatch
	}
	var sigs []api.ApprovalSignal
	for len(refs) > 0 {
		n := min(size, len(refs))
		sig := base
		sig.ActionID, sig.ArgsHash, sig.RequestID = refs[0].ActionID, refs[0].ArgsHash, newRequestID()
		if n > 1 {
			sig.Batch = append([]api.ActionRef(nil), refs[1:n]...)
		}
		sigs = append(sigs, sig)
		refs = refs[n:]
	}
	return sigs
}
