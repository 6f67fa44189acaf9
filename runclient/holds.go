package runclient

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
)

// Hold places an operator's hold: every run it matches stops before its
// next side effect (docs/operations.md, "Stopping an agent's side
// effects"). It signals the holds workflow, starting it on taskQueue (the
// workers') when it is not running, so the hold is recorded durably even
// while no worker is up. The starter's hold and the approval server's
// POST /v1/holds both come here.
func (c *Client) Hold(ctx context.Context, taskQueue string, sig api.HoldSignal) error {
	return c.signalHolds(ctx, taskQueue, api.SignalHold, sig)
}

// Release releases the hold on sig.Selector: the runs it held go on, and
// each sends its action once.
func (c *Client) Release(ctx context.Context, taskQueue string, sig api.HoldSignal) error {
	return c.signalHolds(ctx, taskQueue, api.SignalRelease, sig)
}

func (c *Client) signalHolds(ctx context.Context, taskQueue, signal string, sig api.HoldSignal) error {
	if err := sig.Validate(); err != nil {
		return err
	}
	if taskQueue == "" {
		return errors.New("the holds workflow needs the workers' task queue")
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	id := api.HoldsWorkflowID(taskQueue)
	opts := client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}
	if _, err := c.temporal.SignalWithStartWorkflow(ctx, id, signal, sig, opts, api.HoldsWorkflowName, api.HoldsState{}); err != nil {
		return classify(ctx, "", fmt.Sprintf("%s %s", signal, sig.Selector), err)
	}
	return nil
}

// Holds answers the query of taskQueue's holds workflow: the active holds and the audit
// log. No holds workflow means nothing was ever held.
func (c *Client) Holds(ctx context.Context, taskQueue string) (api.HoldsView, error) {
	var view api.HoldsView
	err := c.query(ctx, api.HoldsWorkflowID(taskQueue), &view, api.QueryHolds)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		return api.HoldsView{}, nil
	}
	return view, err
}
