package runclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/api"
)

// HoldAnswerTimeout bounds how long Hold and Release wait for the holds
// workflow's answer when neither the caller nor Options.CallTimeout bounds
// it: with no worker polling the workers' queue nobody answers.
const HoldAnswerTimeout = 20 * time.Second

// ErrHoldUnconfirmed: the holds workflow did not answer a hold or release
// in time (no worker of its queue answered, or Temporal did not). It is
// not known to have been applied: Temporal may still hand it to a worker
// that comes back soon, so the holds are to be read before trying again.
var ErrHoldUnconfirmed = errors.New("not confirmed: the holds workflow did not answer in time (is a worker polling its task queue?); list the holds before trying again")

// Hold places an operator's hold: every run it matches stops before its
// next side effect (docs/operations.md, "Stopping an agent's side
// effects"). It is an update of the holds workflow, started on taskQueue
// (the workers') when it is not running, and answers what the holds
// workflow did: placed, replaced (the sender's own hold on the selector),
// or refused with why. The starter's hold and the approval server's
// POST /v1/holds both come here.
func (c *Client) Hold(ctx context.Context, taskQueue string, sig api.HoldSignal) (api.HoldAnswer, error) {
	return c.changeHolds(ctx, taskQueue, api.UpdateHold, sig)
}

// Release releases the sender's hold on sig.Selector (every hold on it
// with sig.All): once no hold matches them, the runs it held go on, and
// each sends its action once. It answers released, or nothing to release.
func (c *Client) Release(ctx context.Context, taskQueue string, sig api.HoldSignal) (api.HoldAnswer, error) {
	return c.changeHolds(ctx, taskQueue, api.UpdateRelease, sig)
}

func (c *Client) changeHolds(ctx context.Context, taskQueue, update string, sig api.HoldSignal) (api.HoldAnswer, error) {
	if err := sig.Validate(); err != nil {
		return api.HoldAnswer{}, err
	}
	if taskQueue == "" {
		return api.HoldAnswer{}, errors.New("the holds workflow needs the workers' task queue")
	}
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if _, ok := ctx.Deadline(); !ok {
		ctx, cancel = context.WithTimeout(ctx, HoldAnswerTimeout)
		defer cancel()
	}
	id := api.HoldsWorkflowID(taskQueue)
	start := c.temporal.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID: id, TaskQueue: taskQueue, WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, api.HoldsWorkflowName, api.HoldsState{})
	doing := fmt.Sprintf("%s %s", update, sig.Selector)
	handle, err := c.temporal.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: start,
		UpdateOptions: client.UpdateWorkflowOptions{
			WorkflowID: id, UpdateName: update, UpdateID: holdUpdateID(update, sig), Args: []any{sig},
			WaitForStage: client.WorkflowUpdateStageCompleted,
		},
	})
	var answer api.HoldAnswer
	if err == nil {
		err = handle.Get(ctx, &answer)
	}
	if err != nil {
		err = classify(ctx, "", doing, err)
		if errors.Is(err, ErrUnavailable) {
			return api.HoldAnswer{}, errors.Join(ErrHoldUnconfirmed, err)
		}
		return api.HoldAnswer{}, err
	}
	return answer, nil
}

// holdUpdateID is the update's ID: a request sent again with the same
// RequestID, by the same sender on the same channel, is the same update,
// which the holds workflow applies once (while its generation lasts).
// Without a RequestID, Temporal makes one up.
func holdUpdateID(update string, sig api.HoldSignal) string {
	if sig.RequestID == "" {
		return ""
	}
	return update + ":" + api.RequestKey(sig.Channel, sig.By, sig.RequestID)
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
