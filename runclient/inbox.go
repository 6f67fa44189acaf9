package runclient

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/agentrun/agentrun/api"
)

// snapshotQueries bounds the run queries one listing sends at once. A
// query's time is mostly its trip through the server to the worker and
// back, not work, so at 8 a listing of 400 waiting runs took 2 to 7 s on
// the bench's 2 cores and at 32 under 2 s.
const snapshotQueries = 32

// PendingApproval is one entry of the approval inbox: one waiting action.
type PendingApproval struct {
	RunID    string `json:"runId"`
	ActionID string `json:"actionId"`
	// ArgsHash is the action's input, which a decision may be bound to.
	ArgsHash string `json:"argsHash"`
	Tool     string `json:"tool"`
	// Words are the tool's (PendingAction.Words), so that the inbox says
	// what the action does; nil on actions recorded before them.
	Words *api.ToolWords `json:"words,omitempty"`
	// Agent is the run's agent; Batch, whether it takes one decision on
	// several of its waiting actions.
	Agent       string    `json:"agent,omitempty"`
	Batch       bool      `json:"batch,omitempty"`
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

// InboxSource is what the inbox is read from. *Client is the real one; the
// approval server's handler tests list a fake through the same code.
type InboxSource interface {
	WaitingRunIDs(ctx context.Context) ([]string, error)
	Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error)
}

// ListWaiting lists every action waiting for a person, across runs,
// soonest to expire first: the approval inbox.
func (c *Client) ListWaiting(ctx context.Context) ([]PendingApproval, error) {
	return PendingApprovals(ctx, c)
}

// PendingApprovals is ListWaiting over any source. The approval server's
// GET /v1/approvals and the starter's `list --status waiting_for_user` both
// come here, so a person at a terminal and one at the inbox page see the
// same actions waiting.
//
// A run that keeps its inbox memo (api.MemoInbox) is listed from visibility
// alone; only the others (runs from before the memo, or memos this client
// cannot read) are asked, each through its run query.
func PendingApprovals(ctx context.Context, src InboxSource) ([]PendingApproval, error) {
	runs, err := waitingRunsOf(ctx, src)
	if err != nil {
		return nil, err
	}
	inbox := []PendingApproval{}
	var ask []string
	for _, r := range runs {
		if r.inbox == nil {
			ask = append(ask, r.runID)
			continue
		}
		snap := api.RunSnapshot{Run: r.inbox.Run, Label: r.inbox.Label, Actions: r.inbox.Actions}
		inbox = append(inbox, pendingApprovalsOf(r.runID, snap)...)
	}
	for _, f := range snapshots(ctx, src, ask) {
		// A run that ended or moved on since the listing is simply not waiting.
		if f.err != nil {
			continue
		}
		inbox = append(inbox, pendingApprovalsOf(f.runID, f.snap)...)
	}
	sort.SliceStable(inbox, func(i, j int) bool { return inbox[i].ExpiresAt.Before(inbox[j].ExpiresAt) })
	return inbox, nil
}

// waitingRunsOf lists with the memos when src is the real client, and by
// ID alone otherwise (the approval server's handler tests list a fake).
func waitingRunsOf(ctx context.Context, src InboxSource) ([]waitingRun, error) {
	if c, ok := src.(*Client); ok {
		return c.waitingRuns(ctx)
	}
	ids, err := src.WaitingRunIDs(ctx)
	if err != nil {
		return nil, err
	}
	runs := make([]waitingRun, len(ids))
	for i, id := range ids {
		runs[i] = waitingRun{runID: id}
	}
	return runs, nil
}

// pendingApprovalsOf is one entry per waiting action of the run: a model
// turn may propose several actions at once, each decided on its own.
func pendingApprovalsOf(runID string, snap api.RunSnapshot) []PendingApproval {
	actions := snap.Actions
	if len(actions) == 0 && snap.PendingAction != nil {
		// A snapshot from before Actions lists only the newest.
		actions = []api.PendingAction{*snap.PendingAction}
	}
	var entries []PendingApproval
	for _, a := range actions {
		if a.State != api.ActionWaiting {
			continue
		}
		approvers := a.Approvers
		if len(approvers) == 0 {
			approvers = snap.Run.Approvers
		}
		entries = append(entries, PendingApproval{
			RunID:       runID,
			ActionID:    a.ID,
			ArgsHash:    a.ArgsHash,
			Tool:        a.ToolName,
			Words:       a.Words,
			Agent:       snap.Run.Agent,
			Repo:        snap.Run.Repo,
			PullNumber:  snap.Run.PullNumber,
			Target:      a.Target,
			Preview:     a.Preview,
			RequestedBy: a.RequestedBy,
			Approvers:   approvers,
			CreatedAt:   a.CreatedAt,
			ExpiresAt:   a.ExpiresAt,
			Label:       snap.Label,
			Batch:       snap.Run.BatchApproval,
		})
	}
	return entries
}

// found is one answer of snapshots.
type found struct {
	runID string
	snap  api.RunSnapshot
	err   error
}

// snapshots queries the runs concurrently, at most snapshotQueries at a
// time, and returns the answers in the order of ids.
func snapshots(ctx context.Context, src InboxSource, ids []string) []found {
	results := make([]found, len(ids))
	slots := make(chan struct{}, snapshotQueries)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			snap, err := src.Snapshot(ctx, id)
			results[i] = found{runID: id, snap: snap, err: err}
		}()
	}
	wg.Wait()
	return results
}
