package approvalsrv

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// deliveryRecorder passes the sandbox's deliveries on to the approval
// server and keeps each, so that a test can deliver one again as GitHub's
// redelivery (or a second delivery of one event) would.
type deliveryRecorder struct {
	to   string
	mu   sync.Mutex
	last map[string]recordedDelivery // by X-GitHub-Delivery
}

type recordedDelivery struct {
	header http.Header
	body   []byte
}

func (d *deliveryRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	d.mu.Lock()
	d.last[r.Header.Get("X-GitHub-Delivery")] = recordedDelivery{header: r.Header.Clone(), body: body}
	d.mu.Unlock()
	resp, err := d.send(r.Context(), r.Header, body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(resp)
}

func (d *deliveryRecorder) send(ctx context.Context, header http.Header, body []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.to, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header = header.Clone()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// again delivers id's delivery once more, under newID when set.
func (d *deliveryRecorder) again(t *testing.T, id, newID string) int {
	t.Helper()
	d.mu.Lock()
	rec, ok := d.last[id]
	d.mu.Unlock()
	require.True(t, ok, "delivery %s was not recorded", id)
	header := rec.header.Clone()
	if newID != "" {
		header.Set("X-GitHub-Delivery", newID)
	}
	status, err := d.send(context.Background(), header, rec.body)
	require.NoError(t, err)
	return status
}

// After a review was posted, a push's review marks it superseded by
// editing its summary line, once: the edit's lost answer is reconciled by
// reading the comment (found, not sent again), and the synchronize
// delivered again (the same delivery, and the same event under a new
// delivery ID) neither starts another review nor edits again. Real
// worker, dev server, sandbox deliveries through the approval server.
func TestAPushMarksThePostedReviewSupersededOnceOnADevServer(t *testing.T) {
	testkit.NeedsDevServer(t)
	var rec *deliveryRecorder
	rig := startPullRig(t, "autoreview-supersede-edit", func(webhook string) string {
		rec = &deliveryRecorder{to: webhook, last: map[string]recordedDelivery{}}
		hook := httptest.NewServer(rec)
		t.Cleanup(hook.Close)
		return hook.URL
	})
	stack, sb, ctx, event := rig.stack, rig.sb, t.Context(), rig.event
	edits := func() int {
		n := 0
		for _, r := range sb.Requests() {
			if r.Op == ghsandbox.OpEditComment {
				n++
			}
		}
		return n
	}

	opened := event(ghsandbox.PullEvent{Action: ghsandbox.PullOpened})
	first := PullReviewRunID("acme/widgets", 1, opened.Head, api.DefaultAgent)
	stack.Approve(t, first, stack.WaitForApproval(t, first).ID)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, first, "")).Status)
	posted := sb.Comments("acme", "widgets", 1)
	require.Len(t, posted, 1)
	original := posted[0]

	require.NoError(t, sb.AddFault(ghsandbox.Fault{Op: ghsandbox.OpEditComment, Mode: ghsandbox.ModeDropResponse}))
	pushed := event(ghsandbox.PullEvent{Action: ghsandbox.PullSynchronize, Commits: []ghsandbox.PushedCommit{{Message: "Guard the cache",
		Files: []ghsandbox.FixtureFile{{Filename: "cache/guard.go", Status: "added", Patch: "@@ -0,0 +1,2 @@\n+package cache\n+// TODO: evict"}}}}})
	second := PullReviewRunID("acme/widgets", 1, pushed.Head, api.DefaultAgent)
	next := stack.WaitForApproval(t, second) // the edit is settled before the review starts

	comments := sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 1, "the edit made no comment")
	edited := comments[0]
	require.Equal(t, original.ID, edited.ID)
	require.Equal(t, 1, edited.Edits, "edited once")
	require.Equal(t, 1, edits(), "the lost answer was reconciled by reading, not by a second edit")
	summary, rest, _ := strings.Cut(edited.Body, "\n")
	origSummary, origRest, _ := strings.Cut(original.Body, "\n")
	require.Equal(t, "## ~~"+strings.TrimPrefix(origSummary, "## ")+"~~ (superseded by "+pushed.Head+"; run "+second+" took over)", summary)
	require.Equal(t, origRest, rest)

	snap, err := stack.Snapshot(ctx, second)
	require.NoError(t, err)
	require.Len(t, snap.Outcome.SupersededReviews, 1)
	marked := snap.Outcome.SupersededReviews[0]
	require.Equal(t, api.SupersedeEditFound, marked.State)
	require.Equal(t, first, marked.Review.Run)
	require.Equal(t, api.SupersedeEditKey(second, original.ID), marked.OperationKey)

	// The synchronize again: GitHub's redelivery, then the same event
	// under another delivery ID.
	require.Less(t, rec.again(t, pushed.DeliveryID, ""), 300)
	require.Less(t, rec.again(t, pushed.DeliveryID, "0f0e0d0c-0b0a-4908-8706-050403020100"), 300)
	stack.Approve(t, second, next.ID)
	require.Equal(t, api.RunCompleted, stack.WaitForResult(t, stack.Client().GetWorkflow(ctx, second, "")).Status)
	comments = sb.Comments("acme", "widgets", 1)
	require.Len(t, comments, 2, "the older review, edited, and the new one")
	require.Equal(t, 1, comments[0].Edits)
	require.Equal(t, 1, edits())
	require.False(t, strings.Contains(comments[1].Body, "superseded by"), "the new review is current")
}
