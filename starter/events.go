package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

const eventsSynopsis = "events RUN_ID [--since N] [--follow] [--json]"

// eventsCommand prints a run's events, or follows them as they happen.
type eventsCommand struct {
	env    *env
	since  int64
	follow bool
	json   bool
}

func (c *eventsCommand) flags() *flag.FlagSet {
	fs := newFlagSet("events")
	fs.Int64Var(&c.since, "since", 0, "print only events after sequence `N`")
	fs.BoolVar(&c.follow, "follow", false, "keep printing events until the run ends or waits for a person; "+followExitCodes)
	fs.BoolVar(&c.json, "json", false, "print one JSON event per line")
	return fs
}

func (c *eventsCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	runID, err := parseRunID(fs, eventsSynopsis, args)
	if err != nil {
		return err
	}
	if c.since < 0 {
		return usageErr(fs, eventsSynopsis, fmt.Errorf("--since %d: want 0 or more", c.since))
	}
	rc, err := c.env.runClient(ctx)
	if err != nil {
		return err
	}
	if c.follow {
		return followRun(ctx, c.env, rc, runID, c.since, c.json)
	}
	events, err := rc.Events(ctx, runID, c.since)
	if err != nil {
		return err
	}
	var steps []api.AgentStep
	if !c.json {
		// The steps only name what each event is about; without them the
		// events are still worth printing.
		if snap, err := rc.SnapshotAllSteps(ctx, runID); err == nil {
			steps = snap.Steps
		}
	}
	return printEvents(c.env, events, runview.NewEventLines(steps), c.json)
}

func printEvents(e *env, events []api.Event, lines *runview.EventLines, asJSON bool) error {
	if !asJSON {
		return lines.Print(e.stdout, events)
	}
	for _, ev := range events {
		if err := runview.JSONLine(e.stdout, ev); err != nil {
			return err
		}
	}
	return nil
}

// followRun prints the run's events after since as they happen, until the
// run ends or waits for a person; then it says what the run waits for. A
// run that ended failed, declined or cancelled is a *runEndedError, which
// sets the exit code (followExit).
func followRun(ctx context.Context, e *env, rc *runclient.Client, runID string, since int64, asJSON bool) error {
	ticker := time.NewTicker(e.pollEvery)
	defer ticker.Stop()
	writing := "" // the "Writing: …" line shown last
	lines := runview.NewEventLines(nil)
	for {
		// The snapshot is read before the events, so the events read next
		// include every change up to the state the stop decision sees.
		closed, err := runClosed(ctx, rc, runID)
		if err != nil {
			return err
		}
		snap, err := rc.Snapshot(ctx, runID)
		if err != nil {
			return err
		}
		events, err := rc.Events(ctx, runID, since)
		if err != nil {
			return err
		}
		fresh := eventsAfter(events, since)
		lines.Know(snap.Steps)
		if !asJSON && lines.Unknown(fresh) {
			// The steps were read before the events that name them, or are
			// older than the snapshot's newest: read every one, so that a
			// line reads now as it will when the events are read again.
			all, err := rc.SnapshotAllSteps(ctx, runID)
			if err != nil {
				return err
			}
			lines.Know(all.Steps)
		}
		if err := printEvents(e, fresh, lines, asJSON); err != nil {
			return err
		}
		if len(fresh) > 0 {
			since = fresh[len(fresh)-1].Sequence
		}
		if !asJSON && closed == "" && !followEnds(snap) {
			// Read from the pending model call, never from history: an
			// error only means nothing is shown this time.
			if text, err := rc.ModelWriting(ctx, runID); err == nil {
				writing = followWriting(e.stdout, text, writing)
			}
		}
		if closed != "" || followEnds(snap) {
			if !asJSON {
				if err := runview.FollowEnd(e.stdout, runID, snap, closed); err != nil {
					return err
				}
			}
			return followExit(runID, snap, closed)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("follow %s: %w", runID, ctx.Err())
		case <-ticker.C:
		}
	}
}

// followExitCodes is what --follow's help says of its exit codes.
const followExitCodes = "exits 3 if the run failed, 4 if it did none of its actions (rejected or expired), 5 if it was cancelled"

// followExit is how a followed run ended, for a script: nil when it
// completed having done what it did or waits for a person, else a
// *runEndedError whose code says failed, declined or cancelled.
func followExit(runID string, snap api.RunSnapshot, closed string) error {
	ended := func(code int, how string) error { return &runEndedError{runID: runID, how: how, code: code} }
	switch {
	case snap.Run.Status == api.RunCancelled || closed == runclient.StatusName(enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED):
		how := "was cancelled"
		if c := snap.Cancel; c != nil {
			how += " by " + c.By + ": " + c.Reason // as every view says it (api.StandingOfRun)
		}
		return ended(exitRunCancelled, how)
	case snap.Run.Status == api.RunFailed || closed != "":
		return ended(exitRunFailed, "failed")
	case snap.Run.Status == api.RunCompleted && declinedAll(snap.Outcome):
		return ended(exitRunDeclined, "did none of its actions: "+snap.Outcome.Summary)
	}
	return nil
}

// declinedAll: the run proposed actions and did none, each rejected or
// expired (an answer with feedback is neither).
func declinedAll(o api.Outcome) bool {
	if len(o.Posted) > 0 {
		return false
	}
	for _, d := range o.Declined {
		if !d.Feedback && (d.State == api.ActionRejected || d.State == api.ActionExpired) {
			return true
		}
	}
	return false
}

// eventsAfter drops anything at or before since, so that a repeated or
// overlapping answer never prints an event twice.
func eventsAfter(events []api.Event, since int64) []api.Event {
	var fresh []api.Event
	for _, ev := range events {
		if ev.Sequence > since {
			fresh = append(fresh, ev)
			since = ev.Sequence
		}
	}
	return fresh
}

// runClosed returns how the workflow closed outside the run's own statuses
// (terminated, timed_out), or "" while it is open or completed normally.
func runClosed(ctx context.Context, rc *runclient.Client, runID string) (string, error) {
	desc, err := rc.Describe(ctx, runID)
	if err != nil {
		return "", err
	}
	switch desc.Status {
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED, enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
		enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED, enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return desc.StatusName(), nil
	}
	return "", nil
}

// followEnds says the run will not move without a person, or at all.
func followEnds(snap api.RunSnapshot) bool {
	return runEnded(snap.Run.Status) || runview.WaitsForPerson(snap)
}

func runEnded(s api.RunStatus) bool {
	return s == api.RunCompleted || s == api.RunFailed || s == api.RunCancelled
}

// sleepCtx waits d, or returns the context's error if it ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
