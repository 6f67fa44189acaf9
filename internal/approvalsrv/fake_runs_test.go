package approvalsrv

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/agentrun/agentrun/api"

	"github.com/agentrun/agentrun/runclient"
)

// fakeRuns is an in-memory stand-in for Temporal. A signal to a waiting
// action applies the decision the way the workflow would, so that a repeat
// sees the new state.
type fakeRuns struct {
	mu          sync.Mutex
	holds       api.HoldsView
	holdChanges []holdChange
	// holdAnswerErr is the error of every Hold and Release when set.
	holdAnswerErr error
	snaps         map[string]api.RunSnapshot
	events        map[string][]api.Event
	ended         map[string]bool
	approvals     []api.ApprovalSignal
	resolves      []api.ResolveSignal
	refusals      []api.RefusalSignal
	cancels       []api.CancelSignal
	// supersedes are the Supersede calls, by run (pullrequest_test.go).
	supersedes  map[string][]api.SupersedeSignal
	unavailable bool
	// refusalsFail makes Refuse fail as an unreachable Temporal would.
	refusalsFail bool
	// cancelErr, when set, is what the cancel signal fails with, after the
	// run was reached.
	cancelErr error
	// queries counts Snapshot calls, eventsQueries Events calls, lookups
	// RunByActionID calls and listings WaitingRunIDs calls.
	queries, eventsQueries, lookups, listings int
	// reaches counts Reach calls.
	reaches int
	// signalGate, when set, runs before Decide records a signal,
	// outside the lock, with the number of Decide calls so far.
	signalGate  func(arrived int)
	signalCalls int
	// listGate, when set, runs at the start of WaitingRunIDs, outside the lock.
	listGate func()
	// staleIndex answers RunByActionID as a lagging visibility store would.
	staleIndex map[string]string
	// snapshotsUnavailable fails only the run query, as when no worker
	// polls the run's queue: Reach then answers the run's last known state.
	snapshotsUnavailable bool
	// noMemo, with snapshotsUnavailable, is a run that never waited: its
	// last known state has no inbox memo, only its status.
	noMemo bool
	// starts are the Start requests, pageListings the ListPage filters.
	starts       []runclient.StartRequest
	pageListings []runclient.ListFilter
}

func newFakeRuns() *fakeRuns {
	return &fakeRuns{
		snaps:  map[string]api.RunSnapshot{},
		events: map[string][]api.Event{},
		ended:  map[string]bool{},
	}
}

func (f *fakeRuns) put(runID string, snap api.RunSnapshot) {
	f.mu.Lock()
	defer f.mu.Unlock()
	snap.Run.ID = runID
	f.snaps[runID] = snap
}

func (f *fakeRuns) setUnavailable(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.unavailable = v
}

func (f *fakeRuns) appendEvents(runID string, events ...api.Event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.events[runID] = append(f.events[runID], events...)
}

func (f *fakeRuns) setEnded(runID string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ended[runID] = true
}

func (f *fakeRuns) approvalSignals() []api.ApprovalSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.approvals)
}

func (f *fakeRuns) cancelSignals() []api.CancelSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.cancels)
}

func (f *fakeRuns) resolveSignals() []api.ResolveSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.resolves)
}

func (f *fakeRuns) setRefusalsFail(v bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.refusalsFail = v
}

func (f *fakeRuns) refusalSignals() []api.RefusalSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.refusals)
}

func (f *fakeRuns) check(runID string) error {
	if f.unavailable {
		return fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	if _, ok := f.snaps[runID]; !ok {
		return fmt.Errorf("fake run %s: %w", runID, errRunNotFound)
	}
	return nil
}

func (f *fakeRuns) Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries++
	if f.snapshotsUnavailable {
		return api.RunSnapshot{}, fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	if err := f.check(runID); err != nil {
		return api.RunSnapshot{}, err
	}
	return f.snaps[runID], nil
}

// Reach answers as runclient's: the run query's snapshot while a worker
// answers it, and otherwise the last known state that the run's memo and
// status search attribute would hold, built by runclient.LastKnownReach:
// the inbox memo of a run that waited (unless noMemo), and the comments it
// posted once it ended.
func (f *fakeRuns) Reach(ctx context.Context, runID string) (runclient.Reach, error) {
	f.mu.Lock()
	f.reaches++
	noWorker := f.snapshotsUnavailable
	noMemo := f.noMemo
	err := f.check(runID)
	snap, ended := f.snaps[runID], f.ended[runID]
	f.mu.Unlock()
	if err != nil {
		return runclient.Reach{}, err
	}
	desc := runclient.Description{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, RunStatus: snap.Run.Status}
	if ended {
		desc.Status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	}
	if !noWorker {
		snap, err := f.Snapshot(ctx, runID)
		reach := runclient.LastKnownReach(runID, desc, nil)
		reach.Snapshot, reach.Live, reach.KnowsWho = snap, true, true
		return reach, err
	}
	if !noMemo {
		memo := api.InboxMemo{Run: snap.Run, Label: snap.Label}
		for _, a := range snap.Actions {
			if a.State == api.ActionWaiting {
				memo.Actions = append(memo.Actions, a)
			}
		}
		desc.Inbox = &memo
	}
	if snap.Run.Status.IsTerminal() {
		desc.Posted = api.PostedComments(snap.Outcome.Posted)
	}
	return runclient.LastKnownReach(runID, desc, fmt.Errorf("fake: no worker: %w", errTemporalUnavailable)), nil
}

// reachCount reads how many times Reach was called.
func (f *fakeRuns) reachCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reaches
}

// counts reads the call counters: Snapshot, Events, RunByActionID, WaitingRunIDs.
func (f *fakeRuns) counts() (snapshots, events, lookups, listings int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries, f.eventsQueries, f.lookups, f.listings
}

func (f *fakeRuns) Events(ctx context.Context, runID string, since int64) ([]api.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.eventsQueries++
	if err := f.check(runID); err != nil {
		return nil, err
	}
	var out []api.Event
	for _, ev := range f.events[runID] {
		if ev.Sequence > since {
			out = append(out, ev)
		}
	}
	return out, nil
}

func (f *fakeRuns) Ended(ctx context.Context, runID string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(runID); err != nil {
		return false, err
	}
	return f.ended[runID], nil
}

func (f *fakeRuns) Decide(ctx context.Context, runID string, sig api.ApprovalSignal) error {
	f.mu.Lock()
	f.signalCalls++
	gate, arrived := f.signalGate, f.signalCalls
	f.mu.Unlock()
	if gate != nil {
		gate(arrived)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(runID); err != nil {
		return err
	}
	f.approvals = append(f.approvals, sig)
	if f.snapshotsUnavailable {
		return nil // no worker: the signal waits for one
	}
	snap := f.snaps[runID]
	for _, ref := range append([]api.ActionRef{{ActionID: sig.ActionID}}, sig.Batch...) {
		if a := snap.PendingAction; a != nil && a.ID == ref.ActionID && a.State == api.ActionWaiting {
			decided := decidedBy(*a, sig)
			snap.PendingAction = &decided
		}
		snap.Actions = slices.Clone(snap.Actions)
		for i, a := range snap.Actions {
			if a.ID == ref.ActionID && a.State == api.ActionWaiting {
				snap.Actions[i] = decidedBy(a, sig)
			}
		}
	}
	f.snaps[runID] = snap
	return nil
}

// decidedBy is a as the workflow leaves it after applying sig.
func decidedBy(a api.PendingAction, sig api.ApprovalSignal) api.PendingAction {
	a.State = api.ActionApproved
	if sig.Decision == api.DecisionReject {
		a.State = api.ActionRejected
	}
	a.DecidedBy = sig.Approver
	a.RequestKeys = append(slices.Clone(a.RequestKeys), api.RequestKey(sig.Channel, sig.Approver, sig.RequestID))
	return a
}

func (f *fakeRuns) Resolve(ctx context.Context, runID string, sig api.ResolveSignal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(runID); err != nil {
		return err
	}
	f.resolves = append(f.resolves, sig)
	return nil
}

func (f *fakeRuns) Cancel(ctx context.Context, runID string, sig api.CancelSignal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(runID); err != nil {
		return err
	}
	if f.cancelErr != nil {
		return f.cancelErr
	}
	f.cancels = append(f.cancels, sig)
	return nil
}

// Refuse records the refusal as the workflow would: a signal_ignored
// event on the action's step.
func (f *fakeRuns) Refuse(ctx context.Context, runID string, sig api.RefusalSignal) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.check(runID); err != nil {
		return err
	}
	if f.refusalsFail {
		return fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	f.refusals = append(f.refusals, sig)
	stepID := ""
	if a := actionIn(f.snaps[runID], sig.ActionID); a != nil {
		stepID = a.StepID
	}
	events := f.events[runID]
	f.events[runID] = append(events, api.Event{
		Sequence: int64(len(events) + 1), At: testNow, Type: api.EventSignalIgnored, StepID: stepID,
		Detail: refusalNote(sig),
	})
	return nil
}

// refusalNote is the workflow's note of a refusal (workflows/decide.go):
// who sent it, unless the reason names them, and why.
func refusalNote(sig api.RefusalSignal) string {
	if sig.Who == "" || strings.Contains(sig.Reason, sig.Who) {
		return fmt.Sprintf("refused by the approval server (%s): %s", sig.Channel, sig.Reason)
	}
	return fmt.Sprintf("refused by the approval server (%s): a decision by %s: %s", sig.Channel, sig.Who, sig.Reason)
}

// RunByActionID finds the run as the search attribute would: any run, open
// or closed, that has the action.
func (f *fakeRuns) RunByActionID(ctx context.Context, actionID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lookups++
	if f.unavailable {
		return "", fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	if runID, ok := f.staleIndex[actionID]; ok {
		return runID, nil
	}
	ids := make([]string, 0, len(f.snaps))
	for id := range f.snaps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if actionIn(f.snaps[id], actionID) != nil {
			return id, nil
		}
	}
	return "", fmt.Errorf("fake: action %s: %w", actionID, errRunNotFound)
}

func (f *fakeRuns) WaitingRunIDs(ctx context.Context) ([]string, error) {
	f.mu.Lock()
	gate := f.listGate
	f.listings++
	f.mu.Unlock()
	if gate != nil {
		gate()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unavailable {
		return nil, fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	var ids []string
	for id, snap := range f.snaps {
		if snap.Run.Status.IsTerminal() {
			continue
		}
		if snap.Run.Status != api.RunWaitingForUser {
			continue
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids, nil
}

// List lists the runs as visibility would, newest first by creation.
func (f *fakeRuns) List(ctx context.Context, filter runclient.ListFilter) ([]runclient.Listed, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listings++
	if f.unavailable {
		return nil, fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	var rows []runclient.Listed
	for id, snap := range f.snaps {
		if (filter.Status == "" || snap.Run.Status == filter.Status) && (filter.Agent == "" || snap.Run.Agent == filter.Agent) {
			rows = append(rows, runclient.Listed{RunID: id, Status: string(snap.Run.Status), StartedAt: snap.Run.CreatedAt})
		}
	}
	slices.SortFunc(rows, func(a, b runclient.Listed) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
	return rows, nil
}

// Start records the request; the handler tests of POST /v1/runs check what
// reaches it (or that nothing does). Idempotency is the real client's, and
// is tested against a real server (startrun_devserver_test.go).
func (f *fakeRuns) Start(ctx context.Context, req runclient.StartRequest) (runclient.Started, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.starts = append(f.starts, req)
	if f.unavailable {
		return runclient.Started{}, fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	return runclient.Started{RunID: req.RunID}, nil
}

func (f *fakeRuns) startRequests() []runclient.StartRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.starts)
}

// ListPage records the filter and answers an empty page.
func (f *fakeRuns) ListPage(ctx context.Context, filter runclient.ListFilter, size int, token string) (runclient.Page, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pageListings = append(f.pageListings, filter)
	return runclient.Page{}, nil
}

// holdChange is a hold or release sent, in order, as "place-hold" or
// "release-hold" (api.UpdateHold, api.UpdateRelease).
type holdChange struct {
	Update string
	Queue  string
	Sig    api.HoldSignal
}

// Hold keeps one hold per selector and sender, as the holds workflow does
// (its own rules are tested in workflows); holdAnswerErr, when set, is the
// error every hold and release gets.
func (f *fakeRuns) Hold(_ context.Context, queue string, sig api.HoldSignal) (api.HoldAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.holdCallErr(); err != nil {
		return api.HoldAnswer{}, err
	}
	f.holdChanges = append(f.holdChanges, holdChange{api.UpdateHold, queue, sig})
	sel, _ := sig.Selector.Canonical()
	answer := api.HoldAnswer{Outcome: api.HoldOutcomePlaced, Selector: sel}
	f.holds.Active = slices.DeleteFunc(f.holds.Active, func(h api.Hold) bool {
		own := h.Selector == sel && h.SameSender(sig.By)
		if own {
			answer.Outcome = api.HoldOutcomeReplaced
		}
		return own
	})
	f.holds.Active = append(f.holds.Active, api.Hold{Selector: sel, By: sig.By, Reason: sig.Reason, Channel: sig.Channel})
	return answer, nil
}

func (f *fakeRuns) Release(_ context.Context, queue string, sig api.HoldSignal) (api.HoldAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.holdCallErr(); err != nil {
		return api.HoldAnswer{}, err
	}
	f.holdChanges = append(f.holdChanges, holdChange{api.UpdateRelease, queue, sig})
	sel, _ := sig.Selector.Canonical()
	before := len(f.holds.Active)
	f.holds.Active = slices.DeleteFunc(f.holds.Active, func(h api.Hold) bool {
		return h.Selector == sel && (sig.All || h.SameSender(sig.By))
	})
	if len(f.holds.Active) == before {
		return api.HoldAnswer{Outcome: api.HoldOutcomeNothingToRelease, Selector: sel, Note: "nothing to release: no hold on " + sel.String()}, nil
	}
	return api.HoldAnswer{Outcome: api.HoldOutcomeReleased, Selector: sel}, nil
}

func (f *fakeRuns) holdCallErr() error {
	if f.unavailable {
		return fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	return f.holdAnswerErr
}

func (f *fakeRuns) Holds(context.Context, string) (api.HoldsView, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.unavailable {
		return api.HoldsView{}, fmt.Errorf("fake: %w", errTemporalUnavailable)
	}
	return f.holds, nil
}

func (f *fakeRuns) holdChangesSent() []holdChange {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.holdChanges)
}
