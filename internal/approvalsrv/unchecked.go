// This file is the door's side of a person's command when no worker
// answers for the run: the command is checked against the run's last known
// state only, and then recorded; the run checks it again when a worker
// picks it up. What bounds a flood of such commands is here.

package approvalsrv

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/agentrun/agentrun/runclient"
)

// Limits of the commands recorded while no worker answers.
const (
	// uncheckedPerPerson caps the commands one person may have recorded in
	// one run while no worker answers for it: each is a signal that
	// Temporal keeps in the run's history until a worker applies it, and
	// nothing live has checked it. Past the cap the person is told to wait.
	uncheckedPerPerson = 10
	// uncheckedPerRun caps them across the people of one run: on a run that
	// names no approvers, a signed API caller names the person itself.
	uncheckedPerRun = 50
	// runsWithUnchecked is how many (run, person) pairs and runs the caps
	// remember; one forgotten may take its cap again.
	runsWithUnchecked = 10000
)

// reachRun is runclient.Reach with its failures as answers: an unknown
// run and an unreachable Temporal as TemporalFailure says, and a run that
// has ended and that no worker answers for as a 409 (a live run says so
// itself, in its snapshot).
func (s *Server) reachRun(ctx context.Context, logger *slog.Logger, runID, what string) (runclient.Reach, outcome) {
	reach, err := reachOnce(ctx, s.runs, runID)
	if err != nil {
		return reach, temporalFailure(logger, err, what)
	}
	if reach.Live {
		return reach, accepted("")
	}
	logger.Info("no worker answered the run query; checking the run's last known state", "during", what, "err", reach.NoAnswer)
	if !reach.Open {
		return reach, refused(http.StatusConflict, fmt.Sprintf("the run has ended (%s)", reach.EndedAs))
	}
	return reach, accepted("")
}

// reachedKey carries, in a request's context, the run its read guard
// (scopeToReaders) has reached, so that the handler after it does not
// reach it again: with no worker, each reach waits out the run query.
type reachedKey struct{}

type reached struct {
	runID string
	reach runclient.Reach
}

// withReached is ctx carrying runID's reach.
func withReached(ctx context.Context, runID string, reach runclient.Reach) context.Context {
	return context.WithValue(ctx, reachedKey{}, reached{runID: runID, reach: reach})
}

// reachOnce is the reach ctx carries for runID, or runs.Reach.
func reachOnce(ctx context.Context, runs interface {
	Reach(context.Context, string) (runclient.Reach, error)
}, runID string) (runclient.Reach, error) {
	if r, ok := ctx.Value(reachedKey{}).(reached); ok && r.runID == runID {
		return r.reach, nil
	}
	return runs.Reach(ctx, runID)
}

// takeUnchecked counts a command about to be recorded without a live
// check against uncheckedPerPerson and uncheckedPerRun; a command checked
// live costs nothing.
func (s *Server) takeUnchecked(reach runclient.Reach, runID, who string) outcome {
	if reach.Live {
		return accepted("")
	}
	if !s.unchecked.take(runID + "\x00" + strings.ToLower(strings.TrimSpace(who))) {
		return refused(http.StatusTooManyRequests, fmt.Sprintf(
			"%s already has %d commands recorded for this run while no worker answers for it; wait until the run acts on them", who, uncheckedPerPerson))
	}
	if !s.uncheckedRuns.take(runID) {
		return refused(http.StatusTooManyRequests, fmt.Sprintf(
			"this run already has %d commands recorded while no worker answers for it; wait until the run acts on them", uncheckedPerRun))
	}
	return accepted("")
}

// sent is the answer to a command the run was signalled: the run's own
// word comes later, through its events, or, with no worker, Recorded.
func sent(reach runclient.Reach) outcome {
	if reach.Live {
		return accepted(statusSignalSent)
	}
	return recorded(reach.Snapshot)
}
