package bench

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The overhead benchmarks compare one approved agentrun with a fixed
// Temporal floor: a bare workflow of no-op activities before and after one
// signal (bareShape, agentrun's own shape at 0.1.0), answered the same way
// (poll a query until it says waiting, then signal). Both run on one tuned
// in-memory dev server with in-process workers, so their ratio is what
// agentrun adds and what it saved.
//
//	go test ./internal/bench -run TestOverheadRatio -v -count=1
//	go test ./internal/bench -bench 'AgentRun|Baseline' -run '^$' -benchtime 20x

const (
	agentRunQueue = "overhead-agentrun"
	bareQueue     = "overhead-bare"

	bareWorkflowName = "BareApprovalShape"
	bareActivityName = "BareNoop"
	bareSignal       = "decision"
	bareQuery        = "status"
	bareWaiting      = "waiting"

	// inboxQueriesPerSecond bounds how often the driver, like an approval
	// inbox, asks the open runs whether they wait: each of n concurrent runs
	// is asked every n/inboxQueriesPerSecond. Unbounded, 20 runs polled
	// every 5 ms would make queries the server's main work.
	inboxQueriesPerSecond = 200
	// concurrentRuns is the batch size of the throughput measurement.
	concurrentRuns = 20
	// runTimeout bounds one run or one batch on a busy 2-core machine.
	runTimeout = 2 * time.Minute

	benchRepoOwner = "acme"
	benchRepoName  = "widgets"
	// benchPulls copies of the reviewed pull request keep each one's comment
	// list short: creating a comment first reads every page of that list
	// for its marker, so runs piling onto one pull request would measure a
	// longer and longer list, not agentrun.
	benchPulls     = 512
	firstBenchPull = 1000
)

// BenchmarkAgentRunApproved is one approved agentrun per iteration.
func BenchmarkAgentRunApproved(b *testing.B) {
	rig := startOverheadRig(b)
	benchmarkBatches(b, rig, rig.agentRun(), 1)
}

// BenchmarkBaselineBareWorkflow is one run of agentrun's shape on bare Temporal per iteration.
func BenchmarkBaselineBareWorkflow(b *testing.B) {
	rig := startOverheadRig(b)
	benchmarkBatches(b, rig, rig.baseline(), 1)
}

// BenchmarkAgentRunApprovedConcurrent is concurrentRuns approved agentruns at once per iteration.
func BenchmarkAgentRunApprovedConcurrent(b *testing.B) {
	rig := startOverheadRig(b)
	benchmarkBatches(b, rig, rig.agentRun(), concurrentRuns)
}

// BenchmarkBaselineBareWorkflowConcurrent is concurrentRuns baselines at once per iteration.
func BenchmarkBaselineBareWorkflowConcurrent(b *testing.B) {
	rig := startOverheadRig(b)
	benchmarkBatches(b, rig, rig.baseline(), concurrentRuns)
}

func benchmarkBatches(b *testing.B, rig *overheadRig, k contender, size int) {
	for b.Loop() {
		if _, err := rig.runBatch(context.Background(), k, size); err != nil {
			b.Fatal(err)
		}
	}
	runs := b.N * size
	b.ReportMetric(msPer(b.Elapsed(), runs), "ms/run")
	b.ReportMetric(runsPerSecond(b.Elapsed(), runs), "runs/s")
}

func msPer(d time.Duration, n int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(n)
}

func runsPerSecond(d time.Duration, runs int) float64 { return float64(runs) / d.Seconds() }

const (
	// ratioRuns sequential runs of each side, interleaved so that load from
	// other processes on the machine falls on both alike.
	ratioRuns = 20
	// ratioBatches batches of concurrentRuns of each side, interleaved too.
	ratioBatches = 3
)

// TestOverheadRatio measures both sides in one process on one server and
// logs the ratios, the history's bytes by event type and, with
// AGENTRUN_BENCH_CPUPROFILE, the worker's and the driver's CPU apart. It
// asserts outcomes, never timings. AGENTRUN_BENCH_CONCURRENCY lists the
// batch sizes ("20,100"; default 20):
//
//	AGENTRUN_BENCH_CONCURRENCY=20,100 AGENTRUN_BENCH_CPUPROFILE=$PWD/bin/cpu.pprof \
//	  go test ./internal/bench -run TestOverheadRatio -v -count=1
func TestOverheadRatio(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a dev server")
	}
	sizes := overheadConcurrency(t)
	stopProfile := startCPUProfile(t, os.Getenv("AGENTRUN_BENCH_CPUPROFILE"))
	rig := startOverheadRig(t)
	agent, base := rig.agentRun(), rig.baseline()
	commentsBefore := rig.botComments()

	sequential := map[string][]time.Duration{}
	for range ratioRuns {
		for _, k := range []contender{agent, base} {
			sequential[k.name()] = append(sequential[k.name()], timedBatch(t, rig, k, 1))
		}
	}
	rows := []ratioRow{
		{fmt.Sprintf("sequential, mean ms per run (%d runs)", ratioRuns), meanMs(sequential[agent.name()]), meanMs(sequential[base.name()])},
		{"sequential, median ms per run", medianMs(sequential[agent.name()]), medianMs(sequential[base.name()])},
	}
	approved := ratioRuns
	for _, size := range sizes {
		concurrent := map[string]time.Duration{}
		for range ratioBatches {
			for _, k := range []contender{agent, base} {
				concurrent[k.name()] += timedBatch(t, rig, k, size)
			}
		}
		total := ratioBatches * size
		approved += total
		rows = append(rows, ratioRow{fmt.Sprintf("%d concurrent, runs/s (%d batches)", size, ratioBatches),
			runsPerSecond(concurrent[agent.name()], total), runsPerSecond(concurrent[base.name()], total)})
	}

	require.Equal(t, commentsBefore+approved, rig.botComments(), "every approved run posts exactly one comment")
	t.Logf("agentrun: %s\n  bytes: %s\nbaseline: %s\n  bytes: %s\n%s\n%s", rig.shape, rig.shape.byteBreakdown(),
		rig.baseShape, rig.baseShape.byteBreakdown(), ratioTable(rows), stopProfile())
}

// overheadConcurrency is AGENTRUN_BENCH_CONCURRENCY's batch sizes.
func overheadConcurrency(t *testing.T) []int {
	t.Helper()
	v := os.Getenv("AGENTRUN_BENCH_CONCURRENCY")
	if v == "" {
		return []int{concurrentRuns}
	}
	var sizes []int
	for part := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		require.NoError(t, err, "AGENTRUN_BENCH_CONCURRENCY=%q: a list of batch sizes", v)
		require.Positive(t, n, "AGENTRUN_BENCH_CONCURRENCY=%q", v)
		sizes = append(sizes, n)
	}
	return sizes
}

func timedBatch(t *testing.T, rig *overheadRig, k contender, size int) time.Duration {
	t.Helper()
	start := time.Now()
	_, err := rig.runBatch(context.Background(), k, size)
	require.NoError(t, err)
	return time.Since(start)
}

func meanMs(ds []time.Duration) float64 {
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	return msPer(sum, len(ds))
}

func medianMs(ds []time.Duration) float64 {
	return msPer(slices.Sorted(slices.Values(ds))[len(ds)/2], 1)
}

type ratioRow struct {
	measure         string
	agent, baseline float64
}

func ratioTable(rows []ratioRow) string {
	var sb strings.Builder
	sb.WriteString("| measure | agentrun | baseline (bare Temporal) | agentrun / baseline |\n|---|---:|---:|---:|\n")
	for _, r := range rows {
		fmt.Fprintf(&sb, "| %s | %.1f | %.1f | %.2f |\n", r.measure, r.agent, r.baseline, r.agent/r.baseline)
	}
	return sb.String()
}
