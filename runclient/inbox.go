package runclient

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	workflowpb "go.temporal.io/api/workflow/v1"

	"github.com/agentrun/agentrun/api"
)

// snapshotQueries bounds the run queries one listing sends at once. A
// query's time is mostly its trip through the server to the worker and
// back, not work, so at 8 a listing of 400 waiting runs took 2 to 7 s on
// the bench's 2 cores and at 32 under 2 s.
const snapshotQueries = 32

// maxWaitingRuns caps how many runs one inbox listing walks through.
const maxWaitingRuns = 1000

// PendingApproval is one entry of the approval inbox: one waiting action.
type PendingApproval struct {
	RunID    string `json:"runId"`
	ActionID string `json:"actionId"`
	// ArgsHash is the action's input, which a decision may be bound to.
	ArgsHash string `json:"argsHash"`
	Tool     string `json:"tool"`
	// Words are the tool's (PendingAction.Words), so that the inbox says
	// what the action does.
	Words *api.ToolWords `json:"words,omitempty"`
	// Agent is the run's agent; Batch, whether it takes one decision on
	// several of its waiting actions.
	Agent      string `json:"agent,omitempty"`
	Batch      bool   `json:"batch,omitempty"`
	Repo       string `json:"repo"`
	PullNumber int    `json:"pullNumber"`
	// Target is what the action touches (PendingAction.Target); RunTarget
	// is the run's target as people read it (api.Run.TargetName).
	Target      string    `json:"target"`
	RunTarget   string    `json:"runTarget,omitempty"`
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
// A run whose inbox memo (api.MemoInbox) this client can read is listed
// from visibility alone; only the others (a memo encrypted for a client
// without the codec, or a source without memos) are asked, each through its
// run query.
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
	var entries []PendingApproval
	for _, a := range snap.Actions {
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
			RunTarget:   snap.Run.TargetName(),
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

// WaitingRunIDs lists the open runs whose AgentRunStatus is
// waiting_for_user, at most maxWaitingRuns of them.
func (c *Client) WaitingRunIDs(ctx context.Context) ([]string, error) {
	runs, err := c.waitingRuns(ctx)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.runID
	}
	return ids, nil
}

// waitingRun is a run the inbox lists, with its api.MemoInbox when visibility
// holds one this client can read.
type waitingRun struct {
	runID string
	inbox *api.InboxMemo
}

// waitingRuns is WaitingRunIDs with each run's inbox memo, from the same
// listing: visibility writes a run's status and its memo together.
func (c *Client) waitingRuns(ctx context.Context) ([]waitingRun, error) {
	query := fmt.Sprintf("WorkflowType = %q AND ExecutionStatus = \"Running\" AND %s = %q",
		api.WorkflowName, api.SearchAttrStatus.GetName(), api.RunWaitingForUser)
	var runs []waitingRun
	// One page holds a whole listing: the inbox reads its entries from
	// the page itself, so every round trip saved is most of its time.
	err := c.eachPage(ctx, query, maxWaitingRuns, func(execs []*workflowpb.WorkflowExecutionInfo) bool {
		for _, exec := range execs {
			runs = append(runs, waitingRun{runID: exec.GetExecution().GetWorkflowId(), inbox: c.inboxMemo(exec)})
		}
		return len(runs) < maxWaitingRuns
	})
	if err != nil {
		return nil, err
	}
	return runs, nil
}

// inboxMemo reads the run's inbox memo; nil when it has none or when it
// cannot be read (encrypted, and this client was given no converter that
// decrypts it): then the inbox asks the run.
func (c *Client) inboxMemo(exec *workflowpb.WorkflowExecutionInfo) *api.InboxMemo {
	p, ok := exec.GetMemo().GetFields()[api.MemoInbox]
	if !ok {
		return nil
	}
	var memo api.InboxMemo
	if err := c.converter().FromPayload(p, &memo); err != nil {
		return nil
	}
	return &memo
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
