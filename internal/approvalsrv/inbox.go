package approvalsrv

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentrun/agentrun/runclient"
)

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
	inbox []runclient.PendingApproval
	err   error
}

func newInboxCache(runs Runs, now func() time.Time) *inboxCache {
	return &inboxCache{runs: runs, now: now}
}

// list returns the inbox; callers must not modify it, as others share it.
func (c *inboxCache) list(ctx context.Context) ([]runclient.PendingApproval, error) {
	c.mu.Lock()
	l := c.listing
	if l == nil || (settled(l.done) && (l.err != nil || c.now().Sub(l.at) >= inboxFreshFor)) {
		l = &inboxListing{done: make(chan struct{})}
		c.listing = l
		c.mu.Unlock()
		// Others wait on this listing: one caller leaving must not fail it.
		l.inbox, l.err = runclient.PendingApprovals(context.WithoutCancel(ctx), c.runs)
		l.at = c.now()
		close(l.done)
		return l.inbox, l.err
	}
	c.mu.Unlock()
	if !settled(l.done) {
		c.joined.Add(1)
	}
	select {
	case <-l.done:
		return l.inbox, l.err
	case <-ctx.Done():
		return nil, fmt.Errorf("wait for the inbox listing: %w", ctx.Err())
	}
}
