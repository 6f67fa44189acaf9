package approvalsrv

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/agentrun/agentrun/workflows"
)

// snapshotQueries bounds the run queries one listing sends at once.
const snapshotQueries = 8

// PendingApproval is one entry of the approval inbox.
type PendingApproval struct {
	RunID       string    `json:"runId"`
	ActionID    string    `json:"actionId"`
	Tool        string    `json:"tool"`
	Repo        string    `json:"repo"`
	PullNumber  int       `json:"pullNumber"`
	Target      string    `json:"target"`
	Preview     string    `json:"preview"`
	RequestedBy string    `json:"requestedBy"`
	Approvers   []string  `json:"approvers,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	ExpiresAt   time.Time `json:"expiresAt"`
	Label       string    `json:"label"`
}

// PendingApprovals lists every action waiting for a person, across runs,
// soonest to expire first. The starter's `list --status waiting_for_user`
// shows the same inbox.
func PendingApprovals(ctx context.Context, runs Runs) ([]PendingApproval, error) {
	ids, err := runs.ListRunIDs(ctx, RunsWaitingForUser)
	if err != nil {
		return nil, err
	}
	inbox := []PendingApproval{}
	for _, found := range querySnapshots(ctx, runs, ids) {
		// A run that ended or moved on since the listing is simply not waiting.
		if found.err != nil {
			continue
		}
		if entry, ok := pendingApprovalOf(found.runID, found.snap); ok {
			inbox = append(inbox, entry)
		}
	}
	sort.SliceStable(inbox, func(i, j int) bool { return inbox[i].ExpiresAt.Before(inbox[j].ExpiresAt) })
	return inbox, nil
}

func pendingApprovalOf(runID string, snap workflows.RunSnapshot) (PendingApproval, bool) {
	a := snap.PendingAction
	if a == nil || a.State != workflows.ActionWaiting {
		return PendingApproval{}, false
	}
	approvers := a.Approvers
	if len(approvers) == 0 {
		approvers = snap.Run.Approvers
	}
	return PendingApproval{
		RunID:       runID,
		ActionID:    a.ID,
		Tool:        a.ToolName,
		Repo:        snap.Run.Repo,
		PullNumber:  snap.Run.PullNumber,
		Target:      a.Target,
		Preview:     a.Preview,
		RequestedBy: a.RequestedBy,
		Approvers:   approvers,
		CreatedAt:   a.CreatedAt,
		ExpiresAt:   a.ExpiresAt,
		Label:       snap.Label,
	}, true
}

type snapshotResult struct {
	runID string
	snap  workflows.RunSnapshot
	err   error
}

// querySnapshots queries the runs concurrently and returns results in the
// order of ids.
func querySnapshots(ctx context.Context, runs Runs, ids []string) []snapshotResult {
	results := make([]snapshotResult, len(ids))
	slots := make(chan struct{}, snapshotQueries)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			snap, err := runs.Snapshot(ctx, id)
			results[i] = snapshotResult{runID: id, snap: snap, err: err}
		}()
	}
	wg.Wait()
	return results
}

func (s *Server) snapshots(ctx context.Context, ids []string) []snapshotResult {
	return querySnapshots(ctx, s.runs, ids)
}
