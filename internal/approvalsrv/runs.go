package approvalsrv

import (
	"context"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/runclient"
)

// Errors a Runs implementation wraps so that handlers can answer with the
// right status code without knowing about Temporal. They are runclient's,
// so the real client's errors match without translation.
var (
	// errRunNotFound: no run has this ID.
	errRunNotFound = runclient.ErrRunNotFound
	// errTemporalUnavailable: Temporal could not be reached or did not answer in time.
	errTemporalUnavailable = runclient.ErrUnavailable
)

// Runs is what the approval server needs from Temporal: the server's seam.
// *runclient.Client is the real one; handler tests use a fake.
type Runs interface {
	// Start starts a run, or answers the one its ID names (see runclient.Start).
	Start(ctx context.Context, req runclient.StartRequest) (runclient.Started, error)
	// ListPage lists one page of the runs that match a filter.
	ListPage(ctx context.Context, f runclient.ListFilter, size int, token string) (runclient.Page, error)
	Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error)
	// Reach finds the run a person's command goes to: live, or, with no
	// worker answering, as it was last known (see runclient.Reach).
	Reach(ctx context.Context, runID string) (runclient.Reach, error)
	// Events returns the run's events after sinceSequence, in order.
	Events(ctx context.Context, runID string, sinceSequence int64) ([]api.Event, error)
	// Ended tells whether the run's workflow is no longer running.
	Ended(ctx context.Context, runID string) (bool, error)
	Decide(ctx context.Context, runID string, sig api.ApprovalSignal) error
	Resolve(ctx context.Context, runID string, sig api.ResolveSignal) error
	// Cancel asks the run to stop; the run decides whether the sender may.
	Cancel(ctx context.Context, runID string, sig api.CancelSignal) error
	// Refuse records in the run a decision the server refused.
	Refuse(ctx context.Context, runID string, sig api.RefusalSignal) error
	// Supersede tells a review run its pull request moved on.
	Supersede(ctx context.Context, runID string, sig api.SupersedeSignal) error
	// List lists every run, or those with this status, newest first (the
	// history page).
	List(ctx context.Context, f runclient.ListFilter) ([]runclient.Listed, error)
	// WaitingRunIDs lists the open runs waiting for a person.
	WaitingRunIDs(ctx context.Context) ([]string, error)
	// RunByActionID finds, in one visibility query, the open or recently
	// closed run whose AgentRunActionIds holds actionID; errRunNotFound when
	// none does. actionID must pass checkActionID.
	RunByActionID(ctx context.Context, actionID string) (runID string, err error)
	// Hold and Release change the holds of taskQueue's workers (the stop
	// switch) and answer what the holds workflow did; Holds lists them with
	// their audit.
	Hold(ctx context.Context, taskQueue string, sig api.HoldSignal) (api.HoldAnswer, error)
	Release(ctx context.Context, taskQueue string, sig api.HoldSignal) (api.HoldAnswer, error)
	Holds(ctx context.Context, taskQueue string) (api.HoldsView, error)
}

var _ Runs = (*runclient.Client)(nil)
