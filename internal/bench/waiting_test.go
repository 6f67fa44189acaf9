package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
	"github.com/stretchr/testify/require"
)

// waitingResult is what the waiting-runs row reports.
type waitingResult struct {
	runs          int
	rssGrowthKiB  float64 // of this process, which holds the worker
	kibPerRun     float64
	inboxMs       []float64 // each of the inbox listings
	inboxListed   int
	startedInSecs float64
	// stickyCache is the worker's cache size; evictedMs and cachedMs are
	// the p50 of a decision's signal → post started on runs it evicted and
	// on runs it still held (none when it held every run).
	stickyCache         int
	evictedMs, cachedMs float64
}

// measureWaiting starts n approved-shape agentruns on the rig's worker,
// waits until every one waits for approval, and measures the growth of
// this process's VmRSS (the in-process worker holds every waiting run in
// its cache) and how long the inbox takes to list them.
func (r *overheadRig) measureWaiting(ctx context.Context, n int) (waitingResult, error) {
	res := waitingResult{runs: n}
	before, err := settledRSSKiB()
	if err != nil {
		return res, err
	}
	start := time.Now()
	prefix := fmt.Sprintf("waiting-%d", time.Now().UnixNano())
	if err := r.startWaiting(ctx, prefix, n); err != nil {
		return res, err
	}
	// Counted, not listed: a listing stops at runclient's cap (maxWaitingRuns).
	query := fmt.Sprintf("WorkflowId STARTS_WITH %q AND ExecutionStatus = \"Running\" AND %s = %q",
		prefix+"-", api.SearchAttrStatus.GetName(), api.RunWaitingForUser)
	for {
		count, err := r.client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{Query: query})
		if err != nil {
			return res, fmt.Errorf("count waiting runs: %w", err)
		}
		if count.GetCount() >= int64(n) {
			break
		}
		select {
		case <-ctx.Done():
			return res, fmt.Errorf("%d of %d runs wait for approval: %w", count.GetCount(), n, ctx.Err())
		case <-time.After(500 * time.Millisecond):
		}
	}
	res.startedInSecs = time.Since(start).Seconds()
	after, err := settledRSSKiB()
	if err != nil {
		return res, err
	}
	res.rssGrowthKiB = float64(after - before)
	res.kibPerRun = res.rssGrowthKiB / float64(n)
	for range 3 {
		t0 := time.Now()
		inbox, err := r.runs.ListWaiting(ctx)
		if err != nil {
			return res, fmt.Errorf("inbox: %w", err)
		}
		res.inboxMs = append(res.inboxMs, msPer(time.Since(t0), 1))
		res.inboxListed = len(inbox)
	}
	// runclient caps one listing (maxWaitingRuns), so fewer than n is fine.
	if res.inboxListed == 0 {
		return res, fmt.Errorf("the inbox lists none of the %d waiting actions", n)
	}
	if cache := r.stickyCache; cache > 0 && cache+evictionSample < n {
		res.stickyCache = cache
		// Started first, the oldest runs are the ones the cache evicted.
		if res.evictedMs, err = r.approveWaiting(ctx, prefix, 0, evictionSample); err != nil {
			return res, err
		}
		if res.cachedMs, err = r.approveWaiting(ctx, prefix, n-evictionSample, n); err != nil {
			return res, err
		}
	}
	return res, nil
}

// evictionSample is how many evicted and how many cached runs the waiting
// row approves to price a decision on a run the cache no longer holds.
const evictionSample = 10

// approveWaiting approves the waiting runs from..to-1 of prefix, without
// asking them anything first (a query would bring an evicted run back into
// the cache): the action ID comes from the run's inbox memo. It returns the
// p50 of their signal → post started, once each completed.
func (r *overheadRig) approveWaiting(ctx context.Context, prefix string, from, to int) (float64, error) {
	ids := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		id := fmt.Sprintf("%s-%d", prefix, i)
		desc, err := r.client.DescribeWorkflowExecution(ctx, id, "")
		if err != nil {
			return 0, fmt.Errorf("describe waiting run %s: %w", id, err)
		}
		var memo api.InboxMemo
		p, ok := desc.GetWorkflowExecutionInfo().GetMemo().GetFields()[api.MemoInbox]
		if !ok || converter.GetDefaultDataConverter().FromPayload(p, &memo) != nil || len(memo.Actions) != 1 {
			return 0, fmt.Errorf("waiting run %s has no inbox memo with its action", id)
		}
		err = r.runs.Decide(ctx, id, api.ApprovalSignal{ActionID: memo.Actions[0].ID, Decision: api.DecisionApprove, Approver: "alice", RequestID: id})
		if err != nil {
			return 0, fmt.Errorf("approve waiting run %s: %w", id, err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		var res api.RunResult
		if err := r.client.GetWorkflow(ctx, id, "").Get(ctx, &res); err != nil || res.Status != api.RunCompleted {
			return 0, fmt.Errorf("approved waiting run %s ended %s: %v", id, res.Status, err)
		}
	}
	lat, err := signalLatencies(ctx, r.client, ids, api.ActivityExecuteTool)
	if err != nil {
		return 0, err
	}
	return percentileMs(lat, 50), nil
}

// startWaiting starts n runs from a few goroutines, so that the driver's
// own memory does not grow with n.
func (r *overheadRig) startWaiting(ctx context.Context, prefix string, n int) error {
	const starters = 8
	next := make(chan int)
	errs := make([]error, starters)
	var wg sync.WaitGroup
	for s := range starters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				in := api.RunInput{
					Repo: benchRepoOwner + "/" + benchRepoName, PullNumber: firstBenchPull + i%benchPulls,
					UserID: "bench", ToolTimeout: 10 * time.Second,
				}
				opts := client.StartWorkflowOptions{ID: fmt.Sprintf("%s-%d", prefix, i), TaskQueue: agentRunQueue}
				if _, err := r.client.ExecuteWorkflow(ctx, opts, api.WorkflowName, in); err != nil && errs[s] == nil {
					errs[s] = fmt.Errorf("start waiting run %d: %w", i, err)
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errors.Join(errs...)
}

// settledRSSKiB is this process's VmRSS after a full GC has returned what
// it can to the OS.
func settledRSSKiB() (int64, error) {
	runtime.GC()
	debug.FreeOSMemory()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read VmRSS: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parse VmRSS %q: %w", rest, err)
			}
			return kib, nil
		}
	}
	return 0, errors.New("no VmRSS in /proc/self/status")
}

// TestBenchWaitingRows measures only the waiting runs' rows of the report;
// AGENTRUN_BENCH_HEAPPROFILE writes the heap profile once they all wait.
// AGENTRUN_BENCH=full go test ./internal/bench -run TestBenchWaitingRows -v -count=1
func TestBenchWaitingRows(t *testing.T) {
	env := requireRowBench(t)
	rig := startOverheadRigWithCache(t, env.scale.stickyCache)
	ctx, cancel := context.WithTimeout(context.Background(), waitingTimeout(env.scale.waitingRuns))
	defer cancel()
	waiting, err := rig.measureWaiting(ctx, env.scale.waitingRuns)
	require.NoError(t, err)
	if path := os.Getenv("AGENTRUN_BENCH_HEAPPROFILE"); path != "" {
		f, err := os.Create(path)
		require.NoError(t, err)
		require.NoError(t, pprof.WriteHeapProfile(f))
		require.NoError(t, f.Close())
	}
	t.Logf("%d runs waiting in %.0f s", waiting.runs, waiting.startedInSecs)
	logRows(t, waitingRows(waiting), "")
}
