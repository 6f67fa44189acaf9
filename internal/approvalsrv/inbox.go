package approvalsrv

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentrun/agentrun/workflows"
)

// snapshotQueries bounds the run queries one listing sends at once.
const snapshotQueries = 8

// inboxFreshFor is how long one listing answers every inbox request. A
// listing queries every waiting run; without this, each load of the inbox
// page (or a script polling GET /v1/approvals) would do it again.
const inboxFreshFor = time.Second

// inboxCache shares listings: requests within inboxFreshFor of the last
// listing get its result, and requests that arrive while a listing is under
// way wait for it instead of starting their own. Failures are not kept.
type inboxCache struct {
	runs Runs
	now  func() time.Time

	mu      sync.Mutex
	listing *inboxListing
	// joined counts requests that waited for a listing under way.
	joined atomic.Int64
}

type inboxListing struct {
	done  chan struct{}
	at    time.Time // when it finished
	inbox []PendingApproval
	err   error
}

func newInboxCache(runs Runs, now func() time.Time) *inboxCache {
	return &inboxCache{runs: runs, now: now}
}

// list returns the inbox; callers must not modify it, as others share it.
func (c *inboxCache) list(ctx context.Context) ([]PendingApproval, error) {
	c.mu.Lock()
	l := c.listing
	if l == nil || (isClosed(l.done) && (l.err != nil || c.now().Sub(l.at) >= inboxFreshFor)) {
		l = &inboxListing{done: make(chan struct{})}
		c.listing = l
		c.mu.Unlock()
		// Others wait on this listing: one caller leaving must not fail it.
		l.inbox, l.err = PendingApprovals(context.WithoutCancel(ctx), c.runs)
		l.at = c.now()
		close(l.done)
		return l.inbox, l.err
	}
	c.mu.Unlock()
	if !isClosed(l.done) {
		c.joined.Add(1)
	}
	select {
	case <-l.done:
		return l.inbox, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the inbox listing: %w", ctx.Err())
	}
}

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
