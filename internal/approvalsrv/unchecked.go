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
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentrun/agentrun/runclient"
)

// Limits of the commands recorded while no worker answers.
const (
	// uncheckedPerPerson caps the commands one person may have recorded in
	// one run while no worker answers for it: each is a signal that
	// Temporal keeps in the run's history until a worker applies it, and
	// nothing live has checked it. Past the cap the person is told to wait.
	uncheckedPerPerson = 10
	// uncheckedPerRun caps, across the people of one run, the commands no
	// rule of the run vouched for here: on a run that names no approvers, a
	// signed API caller names the person itself. A command from someone the
	// run's rules accept (a listed approver, the requester's cancel, a
	// writer GitHub named) is not counted against it, so such commands
	// cannot crowd those people out.
	uncheckedPerRun = 50
	// runsWithUnchecked is how many runs the caps remember; one forgotten
	// may take its caps again.
	runsWithUnchecked = 10000
	// uncheckedRetryAfter is the Retry-After of a command refused by a cap:
	// the caps are forgotten as soon as a worker answers for the run, which
	// a restarted worker does within seconds; a minute keeps a client that
	// retries from polling.
	uncheckedRetryAfter = time.Minute
)

// reachRun is runclient.Reach with its failures as answers: an unknown
// run and an unreachable Temporal as TemporalFailure says, and a run that
// has ended and that no worker answers for as a 409 (a live run says so
// itself, in its snapshot).
func (s *Server) reachRun(ctx context.Context, logger *slog.Logger, runID, what string) (runclient.Reach, outcome) {
	reach, err := s.reach(ctx, runID)
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

// reach is reachOnce; when a worker answers, the run's counts of commands
// recorded without one are forgotten: that worker applies (or ignores,
// with its reason) what was recorded, and the next outage starts afresh.
func (s *Server) reach(ctx context.Context, runID string) (runclient.Reach, error) {
	reach, err := reachOnce(ctx, s.runs, runID)
	if err == nil && reach.Live {
		s.unchecked.forget(runID)
	}
	return reach, err
}

// takeUnchecked counts a command about to be recorded without a live
// check against uncheckedPerPerson and, unless vetted (someone the run's
// rules accept, as checked here), uncheckedPerRun; a command checked live
// costs nothing.
func (s *Server) takeUnchecked(reach runclient.Reach, runID, who string, vetted bool) outcome {
	if reach.Live {
		return accepted("")
	}
	var o outcome
	switch s.unchecked.take(runID, who, vetted) {
	case capPerson:
		o = refused(http.StatusTooManyRequests, fmt.Sprintf(
			"%s already has %d commands recorded for this run while no worker answers for it; wait until the run acts on them", who, uncheckedPerPerson))
	case capRun:
		o = refused(http.StatusTooManyRequests, fmt.Sprintf(
			"this run already has %d commands recorded while no worker answers for it; wait until the run acts on them", uncheckedPerRun))
	default:
		return accepted("")
	}
	o.RetryAfter = uncheckedRetryAfter
	return o
}

// Which cap refused a command (uncheckedCommands.take).
const (
	capNone = iota
	capPerson
	capRun
)

// uncheckedCommands counts, per run, the commands recorded while no worker
// answered for it: each person's, and those no rule vetted. It remembers
// at most maxRuns runs, forgetting the oldest first.
type uncheckedCommands struct {
	mu      sync.Mutex
	runs    map[string]*uncheckedRun
	order   []string
	maxRuns int
}

type uncheckedRun struct {
	byPerson map[string]int
	unvetted int
}

func newUncheckedCommands(maxRuns int) *uncheckedCommands {
	return &uncheckedCommands{runs: map[string]*uncheckedRun{}, maxRuns: maxRuns}
}

// take counts one more command of who on runID unless a cap refuses it,
// and says which did; a refused command is counted nowhere. The run's cap
// is asked first: a command it refuses is not the person's doing.
func (u *uncheckedCommands) take(runID, who string, vetted bool) int {
	who = strings.ToLower(strings.TrimSpace(who))
	u.mu.Lock()
	defer u.mu.Unlock()
	run, ok := u.runs[runID]
	switch {
	case ok && !vetted && run.unvetted >= uncheckedPerRun:
		return capRun
	case ok && run.byPerson[who] >= uncheckedPerPerson:
		return capPerson
	case !ok:
		run = &uncheckedRun{byPerson: map[string]int{}}
		u.runs[runID] = run
		u.order = append(u.order, runID)
		if len(u.order) > u.maxRuns {
			delete(u.runs, u.order[0])
			u.order = u.order[1:]
		}
	}
	run.byPerson[who]++
	if !vetted {
		run.unvetted++
	}
	return capNone
}

// forget drops runID's counts.
func (u *uncheckedCommands) forget(runID string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if _, ok := u.runs[runID]; !ok {
		return
	}
	delete(u.runs, runID)
	u.order = slices.DeleteFunc(u.order, func(id string) bool { return id == runID })
}

// sent is the answer to a command the run was signalled: the run's own
// word comes later, through its events, or, with no worker, Recorded.
func sent(reach runclient.Reach) outcome {
	if reach.Live {
		return accepted(statusSignalSent)
	}
	return recorded(reach.Snapshot)
}
