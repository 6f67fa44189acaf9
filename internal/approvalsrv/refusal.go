// This file keeps the decisions the approval server refused: the
// latest of each run in memory, for its page and its event streams, and,
// when the refused decision was authenticated, a refusal signal to the run
// itself (capped per run), whose history outlives this process.

package approvalsrv

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/runview"
	"github.com/agentrun/agentrun/runclient"
)

// refusal is a decision the server turned down, kept so that the run's page
// can say why a comment or a click changed nothing.
type refusal struct {
	Seq      int64     `json:"seq"`
	At       time.Time `json:"at"`
	Channel  string    `json:"channel"`
	Who      string    `json:"who"`
	ActionID string    `json:"actionId"`
	Reason   string    `json:"reason"`
	// Step names, for the page, the step the run recorded the refusal on.
	Step string `json:"-"`
	// Recorded is set when the run itself holds the refusal (as a
	// signal_ignored event), so that the page shows it once.
	Recorded bool `json:"-"`
}

// Limits of what is kept.
const (
	// perRun is how many refusals of a run are kept, and shown on its page.
	perRun = 50
	// runsKept is how many runs' refusals are kept.
	runsKept = 1000
	// signalsPerRun caps the refusal signals this process sends to one
	// run: anyone on GitHub can comment on a public pull request, and their
	// refused commands must not grow the run's history without bound. Past
	// the cap a refusal is only logged and kept in memory.
	signalsPerRun = 20
	// runsWithSignals is how many runs the signal cap remembers; a run
	// forgotten may receive signalsPerRun again.
	runsWithSignals = 10000
)

// refuser records a refusal in a run: runclient's Refuse.
type refuser interface {
	Refuse(ctx context.Context, runID string, sig api.RefusalSignal) error
}

// keeper keeps refusals; its methods are safe for concurrent use.
type keeper struct {
	runs    refuser
	now     func() time.Time
	log     *refusalLog
	signals *refusalSignalBudget
}

// newKeeper keeps refusals, signalling them to runs; now stamps them.
func newKeeper(runs refuser, now func() time.Time) *keeper {
	return &keeper{runs: runs, now: now, log: newRefusalLog(perRun, runsKept), signals: newRefusalSignalBudget(signalsPerRun, runsWithSignals)}
}

// Since returns the run's refusals with Seq > after, oldest first.
func (k *keeper) Since(runID string, after int64) []refusal { return k.log.since(runID, after) }

// Last returns the Seq of the run's latest refusal, 0 when there is none.
func (k *keeper) Last(runID string) int64 { return k.log.last(runID) }

// refusalLog keeps the latest refusals of the most recently refused runs.
// It is in memory and makes the page live; the durable record is the run's
// own signal_ignored events (see Record) and the server's log.
type refusalLog struct {
	mu      sync.Mutex
	byRun   map[string]*runRefusals
	runs    []string
	perRun  int
	maxRuns int
}

type runRefusals struct {
	next  int64
	items []refusal
}

func newRefusalLog(perRun, maxRuns int) *refusalLog {
	return &refusalLog{byRun: make(map[string]*runRefusals), perRun: perRun, maxRuns: maxRuns}
}

func (l *refusalLog) add(runID string, r refusal) {
	l.mu.Lock()
	defer l.mu.Unlock()
	rr, ok := l.byRun[runID]
	if !ok {
		rr = &runRefusals{}
		l.byRun[runID] = rr
		l.runs = append(l.runs, runID)
		if len(l.runs) > l.maxRuns {
			delete(l.byRun, l.runs[0])
			l.runs = l.runs[1:]
		}
	}
	rr.next++
	r.Seq = rr.next
	rr.items = append(rr.items, r)
	if len(rr.items) > l.perRun {
		rr.items = rr.items[len(rr.items)-l.perRun:]
	}
}

// since returns the run's refusals with Seq > after, oldest first.
func (l *refusalLog) since(runID string, after int64) []refusal {
	l.mu.Lock()
	defer l.mu.Unlock()
	rr, ok := l.byRun[runID]
	if !ok {
		return nil
	}
	var out []refusal
	for _, r := range rr.items {
		if r.Seq > after {
			out = append(out, r)
		}
	}
	return out
}

// last returns the Seq of the run's latest refusal, 0 when there is none.
func (l *refusalLog) last(runID string) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	if rr, ok := l.byRun[runID]; ok {
		return rr.next
	}
	return 0
}

// Record keeps a refused decision for the run's page and, when inRun, also
// signals it to the run, whose history outlives this process. Only a
// decision the server authenticated, on a run that exists, may be recorded
// in the run: nobody without credentials may write into a run's history.
func (k *keeper) Record(ctx context.Context, logger *slog.Logger, runID string, r refusal, inRun bool) {
	r.At = k.now().UTC().Truncate(time.Second)
	if inRun {
		r.Recorded = k.signal(ctx, logger, runID, r)
	}
	k.log.add(runID, r)
}

// signalRefusal is best effort: a failure is logged and never changes the
// answer to the refused request.
func (k *keeper) signal(ctx context.Context, logger *slog.Logger, runID string, r refusal) bool {
	if !k.signals.take(runID) {
		logger.Info("refusal kept in memory only: the run already holds enough of them", "cap", signalsPerRun)
		return false
	}
	sig := api.RefusalSignal{ActionID: r.ActionID, Who: r.Who, Channel: r.Channel, Reason: r.Reason}
	// A caller that hung up does not make the refusal any less worth keeping.
	err := k.runs.Refuse(context.WithoutCancel(ctx), runID, sig)
	switch {
	case errors.Is(err, runclient.ErrRunNotFound):
		// A late decision on a run that has closed: the run keeps nothing more.
		logger.Info("refusal not recorded: the run has ended")
		return false
	case err != nil:
		logger.Warn("refusal not recorded in the run", "err", err)
		return false
	}
	return true
}

// refusalSignalBudget counts the refusal signals sent to each run. It
// forgets the oldest runs past maxRuns, which bounds its memory.
type refusalSignalBudget struct {
	mu      sync.Mutex
	sent    map[string]int
	runs    []string
	perRun  int
	maxRuns int
}

func newRefusalSignalBudget(perRun, maxRuns int) *refusalSignalBudget {
	return &refusalSignalBudget{sent: make(map[string]int), perRun: perRun, maxRuns: maxRuns}
}

// take reports whether the run may receive one more refusal signal, and
// counts it.
func (b *refusalSignalBudget) take(runID string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, ok := b.sent[runID]
	if !ok {
		b.runs = append(b.runs, runID)
		if len(b.runs) > b.maxRuns {
			delete(b.sent, b.runs[0])
			b.runs = b.runs[1:]
		}
	}
	if n >= b.perRun {
		return false
	}
	b.sent[runID] = n + 1
	return true
}

// channelRun names, on the page, refusals read back from the run's events.
const channelRun = "recorded in the run"

// channelLookalike names, on the page, a look-alike the run ignored: a
// thing that carries the run's reference (a comment's marker, a message's
// nonce) without being the run's own. The event's detail names it in its
// tool's words ("ignored message M-4").
const channelLookalike = "look-alike ignored"

// pageRefusals lists, newest first and at most perRun of them, what
// the run recorded as ignored (refusals this or an earlier server process
// signalled, decisions the workflow itself turned down, and look-alike
// comments reconciliation left alone) together with
// the refusals this process kept but could not record in the run.
func (s *pages) pageRefusals(runID string, snap api.RunSnapshot, events []api.Event) []refusal {
	var out []refusal
	// Each is tagged with its step as it was then: a decision ignored while
	// the comment waited is on "post a comment", not on the comment posted
	// since.
	titles := runview.NewEventLines(snap.Steps).Titles(events)
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		switch ev.Type {
		case api.EventSignalIgnored:
			out = append(out, refusal{At: ev.At.UTC(), Channel: channelRun, ActionID: actionIDOfStep(snap, ev.StepID),
				Reason: ev.Detail, Step: titles[ev.Sequence]})
		case api.EventLookalikeIgnored:
			// A comment that only looks like the run's own proved nothing;
			// people should know someone tried.
			out = append(out, refusal{At: ev.At.UTC(), Channel: channelLookalike, Reason: ev.Detail, Step: titles[ev.Sequence]})
		}
	}
	kept := s.refusals.Since(runID, 0)
	for i := len(kept) - 1; i >= 0; i-- {
		if !kept[i].Recorded {
			out = append(out, kept[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	if len(out) > perRun {
		out = out[:perRun]
	}
	return out
}

func actionIDOfStep(snap api.RunSnapshot, stepID string) string {
	if stepID == "" {
		return ""
	}
	for _, a := range snap.Actions {
		if a.StepID == stepID {
			return a.ID
		}
	}
	return ""
}
