package runclient

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentrun/agentrun/api"
)

// DefaultPrecheckTimeout bounds the run query a person's command asks
// before it is signalled. A live worker answers in milliseconds; none
// answers at all, and the query is only a courtesy (the workflow checks the
// command again), so a person is not kept waiting for it.
const DefaultPrecheckTimeout = 3 * time.Second

// RecordedNote is what a person is told when their command was signalled
// but no worker answered for the run: Temporal holds the signal durably,
// and the workflow applies (or ignores, with its reason) the command when
// a worker picks the run up.
const RecordedNote = "recorded; the run will act on it when a worker picks it up"

// Reach is the run as a person's command (approve, reject, respond,
// cancel, resolve) finds it before it is signalled.
type Reach struct {
	// Snapshot is the run's answer to its run query when Live. Otherwise it
	// is the last state Temporal keeps without a worker (LastKnown): the
	// status search attribute and, while the run waits, the inbox memo's run
	// and waiting actions. That is the state of the run's last workflow
	// task, which no worker has moved on since.
	Snapshot api.RunSnapshot
	// Live: a worker answered the run query.
	Live bool
	// KnowsWho: Snapshot names who may act on the run (its requester,
	// approvers and target). Always when Live; otherwise only when the
	// run's inbox memo was read: a run that never waited, or whose memo
	// this client cannot decrypt, names nobody in its last known state.
	KnowsWho bool
	// Open: Temporal says the run can still take a signal.
	Open bool
	// EndedAs is Temporal's execution status of a run that is not Open
	// ("completed", "terminated").
	EndedAs string
	// NoAnswer is why the run query got no answer, for the log; nil when Live.
	NoAnswer error
}

// Reach describes the run (which needs no worker: run not found and
// Temporal unreachable fail here, as errors.Is ErrRunNotFound and
// ErrUnavailable) and asks the run query, bounded by the precheck timeout.
// The two go out together, so that a person's command waits for one round
// trip to Temporal, not two; the description's error still comes first. A
// query that times out or that no worker polls for is not an error: the
// command is still worth signalling, and Reach answers the run's last
// known state.
func (c *Client) Reach(ctx context.Context, runID string) (Reach, error) {
	type answer struct {
		snap api.RunSnapshot
		err  error
	}
	qctx, cancel := context.WithTimeout(ctx, c.precheckTimeout())
	defer cancel()
	queried := make(chan answer, 1)
	go func() {
		snap, err := c.Snapshot(qctx, runID)
		queried <- answer{snap, err}
	}()
	desc, err := c.Describe(ctx, runID)
	if err != nil {
		cancel()
		<-queried
		return Reach{}, err
	}
	q := <-queried
	snap, err := q.snap, q.err
	switch {
	case err == nil:
		reach := described(desc)
		reach.Snapshot, reach.Live, reach.KnowsWho = snap, true, true
		return reach, nil
	case errors.Is(err, ErrRunNotFound) || ctx.Err() != nil:
		// Deleted since it was described, or the caller gave up.
		return Reach{}, err
	}
	return LastKnownReach(runID, desc, err), nil
}

// LastKnownReach is the Reach of a run no worker answered for (noAnswer
// says why): its last known state, as desc, its description, holds it.
func LastKnownReach(runID string, desc Description, noAnswer error) Reach {
	reach := described(desc)
	reach.Snapshot, reach.KnowsWho, reach.NoAnswer = LastKnown(runID, desc), desc.Inbox != nil, noAnswer
	return reach
}

// described is what a Reach takes from the run's description alone.
func described(desc Description) Reach {
	reach := Reach{Open: desc.Open()}
	if !reach.Open {
		reach.EndedAs = desc.StatusName()
	}
	return reach
}

func (c *Client) precheckTimeout() time.Duration {
	if c.opts.PrecheckTimeout > 0 {
		return c.opts.PrecheckTimeout
	}
	return DefaultPrecheckTimeout
}

// LastKnown is the snapshot a run's last known state makes: its
// AgentRunStatus search attribute ("" before its first workflow task), its
// inbox memo (nil when it has never waited) and, once it ended, the
// comments it posted. The inbox memo is written when the run starts to
// wait and left when it moves on, so its actions count as waiting only
// while the status says the run waits; its run fields (requester,
// approvers, target) stay true.
func LastKnown(runID string, desc Description) api.RunSnapshot {
	status, inbox := desc.RunStatus, desc.Inbox
	snap := api.RunSnapshot{Run: api.Run{ID: runID}}
	if len(desc.Posted) > 0 {
		snap.Outcome.Posted = append([]api.PostedOutcome(nil), desc.Posted...)
	}
	if inbox != nil {
		snap.Run, snap.Label = inbox.Run, inbox.Label
		snap.Run.ID = runID
		if status == api.RunWaitingForUser {
			snap.Actions = append([]api.PendingAction(nil), inbox.Actions...)
			if n := len(snap.Actions); n > 0 {
				snap.PendingAction = &snap.Actions[n-1]
			}
		}
	}
	snap.Run.Status = status
	if status != api.RunWaitingForUser {
		snap.Label = ""
	}
	return snap
}

// LastKnownLine says a run's last known state in one line, after
// RecordedNote: "run R was last known waiting_for_user: waiting for
// approval".
func LastKnownLine(snap api.RunSnapshot) string {
	if snap.Run.Status == "" {
		return fmt.Sprintf("run %s has not been picked up by a worker yet", snap.Run.ID)
	}
	line := fmt.Sprintf("run %s was last known %s", snap.Run.ID, snap.Run.Status)
	if snap.Label != "" {
		line += ": " + snap.Label
	}
	return line
}
