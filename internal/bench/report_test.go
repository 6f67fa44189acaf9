package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/agentworker"
)

// benchScale is how much work the report does: smokeScale in `make test`,
// fullScale in `make bench` (AGENTRUN_BENCH=full).
type benchScale struct {
	name                 string
	sequentialRuns       int
	batches              int   // per concurrency level
	concurrency          []int // runs at once
	longTurns            int   // a turn is two steps
	longHistoryThreshold int
	queries              int
	waitingRuns          int
	kills                int // workers killed mid-post, one run each
	// webhookReviews are the reviews started and approved by deliveries
	// (webhook_test.go), each against one bare run.
	webhookReviews int
	// stickyCache sizes the worker's sticky cache for the whole report
	// (AGENT_STICKY_CACHE_SIZE); 0 leaves the SDK's. The full scale uses
	// the worker's default, agentworker.DefaultStickyCacheSize: a fifth of
	// the 10,000 waiting runs.
	stickyCache int
}

var (
	smokeScale = benchScale{name: "smoke", sequentialRuns: 2, batches: 1, concurrency: []int{2, 3},
		longTurns: 55, longHistoryThreshold: 300, queries: 10, waitingRuns: 5, kills: 2, webhookReviews: 2}
	fullScale = benchScale{name: "full", sequentialRuns: 20, batches: 3, concurrency: []int{20, 100},
		longTurns: 500, longHistoryThreshold: 2000, queries: 200, waitingRuns: 10000, kills: 10, webhookReviews: 20, stickyCache: agentworker.DefaultStickyCacheSize}
)

// waitingTimeout bounds starting n waiting runs and listing them: 2,000
// take up to two minutes to start on a busy 2-core machine.
func waitingTimeout(n int) time.Duration { return 8*time.Minute + time.Duration(n)*60*time.Millisecond }

// benchEnv is the report's configuration, read once from the environment.
type benchEnv struct {
	scale      benchScale
	out        string // the benchmarks.md to rewrite; empty means a copy in a temp dir
	cpuProfile string // where to write the CPU profile; empty means none
}

func readBenchEnv() benchEnv {
	env := benchEnv{scale: smokeScale, out: os.Getenv("AGENTRUN_BENCH_OUT"), cpuProfile: os.Getenv("AGENTRUN_BENCH_CPUPROFILE")}
	if os.Getenv("AGENTRUN_BENCH") == "full" {
		env.scale = fullScale
	}
	// To try another number of waiting runs or cache size (10,000 runs,
	// say) without changing the report's scale.
	if n, err := strconv.Atoi(os.Getenv("AGENTRUN_BENCH_WAITING")); err == nil && n > 0 {
		env.scale.waitingRuns = n
	}
	if n, err := strconv.Atoi(os.Getenv("AGENTRUN_BENCH_STICKY_CACHE")); err == nil && n >= 0 {
		env.scale.stickyCache = n
	}
	return env
}

// TestBenchReport measures every goal of docs/benchmarks.md on one dev
// server, in one process, and rewrites the generated part of that file.
// In `make test` it runs at smokeScale into a copy of the file and checks
// only that every row was measured and the table is well formed; `make
// bench` runs it at fullScale into docs/benchmarks.md. No timing is asserted.
func TestBenchReport(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a dev server")
	}
	env := readBenchEnv()
	machine := describeMachine()
	started := time.Now().UTC()
	stopProfile := startCPUProfile(t, env.cpuProfile)
	rig := startOverheadRigWithCache(t, env.scale.stickyCache)
	ctx := context.Background()
	rows, notes := measureRows(t, ctx, rig, env.scale)
	profileTop := stopProfile()

	out := env.out
	if out == "" {
		out = filepath.Join(t.TempDir(), "benchmarks.md")
		body, err := os.ReadFile(filepath.Join("..", "..", "docs", "benchmarks.md"))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(out, body, 0o644))
	}
	report := renderReport(reportInput{
		scale: env.scale, machine: machine, started: started, took: time.Since(started),
		rows: rows, notes: notes, profileTop: profileTop, shape: rig.shape, baseShape: rig.baseShape, slowQueries: rig.slowQueries.Load(),
	})
	require.NoError(t, replaceGenerated(out, report))
	t.Log("\n" + report)

	written, err := os.ReadFile(out)
	require.NoError(t, err)
	table := goalTable(t, string(written))
	require.Len(t, table, len(rows), "one table row per goal:\n%s", written)
	for i, cells := range table {
		require.Len(t, cells, 4, "row %d: %v", i, cells)
		require.Equal(t, rows[i].measure, cells[0])
		require.Contains(t, []string{"met", "**not met**"}, cells[3], "row %d: %v", i, cells)
		require.NotContains(t, cells[2], "NaN", "row %d was not measured: %v", i, cells)
	}
}

// measureRows runs each measure in turn, the waiting runs last because they
// stay open and load the worker.
func measureRows(t *testing.T, ctx context.Context, rig *overheadRig, s benchScale) ([]goalRow, []string) {
	t.Helper()
	agent, base := rig.agentRun(), rig.baseline()
	commentsBefore := rig.botComments()
	ids := map[string][]string{}
	sequential := map[string][]time.Duration{}
	for range s.sequentialRuns {
		for _, k := range []contender{agent, base} {
			start := time.Now()
			batch, err := rig.runBatch(ctx, k, 1)
			require.NoError(t, err)
			sequential[k.name()] = append(sequential[k.name()], time.Since(start))
			ids[k.name()] = append(ids[k.name()], batch...)
		}
	}
	rows := []goalRow{ratioGoal(fmt.Sprintf("sequential mean ms per approved run (%d runs each)", s.sequentialRuns),
		"≤ 0.75× bare", meanMs(sequential[agent.name()]), meanMs(sequential[base.name()]), atMost(0.75))}
	approved := s.sequentialRuns
	for _, size := range s.concurrency {
		total := map[string]time.Duration{}
		for range s.batches {
			for _, k := range []contender{agent, base} {
				start := time.Now()
				batch, err := rig.runBatch(ctx, k, size)
				require.NoError(t, err)
				total[k.name()] += time.Since(start)
				ids[k.name()] = append(ids[k.name()], batch...)
			}
		}
		approved += s.batches * size
		runs := s.batches * size
		rows = append(rows, ratioGoal(fmt.Sprintf("throughput, %d concurrent runs, runs/s (%d batches)", size, s.batches),
			"≥ 1.3× bare", runsPerSecond(total[agent.name()], runs), runsPerSecond(total[base.name()], runs), atLeast(1.3)))
	}
	require.Equal(t, commentsBefore+approved, rig.botComments(), "every approved run posts exactly one comment")
	rows = append(rows, goalRow{measure: "history bytes per approved run, no payload offloading", goal: "≤ 10,000 bytes",
		measured: fmt.Sprintf("%d bytes (%.2f× bare's %d)", rig.shape.HistoryBytes, float64(rig.shape.HistoryBytes)/float64(rig.baseShape.HistoryBytes), rig.baseShape.HistoryBytes),
		met:      rig.shape.HistoryBytes <= maxHistoryBytes})
	var notes []string

	agentLat, err := signalLatencies(ctx, rig.client, ids[agent.name()], api.ActivityExecuteTool)
	require.NoError(t, err)
	baseLat, err := signalLatencies(ctx, rig.client, ids[base.name()], "")
	require.NoError(t, err)
	rows = append(rows, ratioGoal(fmt.Sprintf("approval signal → create activity started, p99 ms (%d runs each)", len(agentLat)),
		"≤ 1.2× bare signal → activity p99", percentileMs(agentLat, 99), percentileMs(baseLat, 99), atMost(1.2)))
	rows = append(rows, rig.measureWebhookRows(t, ctx, s.webhookReviews)...)

	long, err := rig.measureLongRun(ctx, s.longTurns, s.longHistoryThreshold, s.queries)
	require.NoError(t, err)
	rows = append(rows, longRunRows(long, s)...)

	rows = append(rows, recoveryRow(measureRecovery(t, s.kills)))

	waitCtx, cancel := context.WithTimeout(ctx, waitingTimeout(s.waitingRuns))
	defer cancel()
	waiting, err := rig.measureWaiting(waitCtx, s.waitingRuns)
	require.NoError(t, err)
	rows = append(rows, waitingRows(waiting)...)
	return rows, notes
}

// longRunRows are the long run's two rows: step time and the run query.
func longRunRows(long longRunResult, s benchScale) []goalRow {
	return []goalRow{
		{measure: fmt.Sprintf("%d-step run: ms per step, last %d / first %d (%d continue-as-new)", 2*s.longTurns, long.windowSteps, long.windowSteps, long.generations),
			goal: "completes; ≤ 1.1×", measured: fmt.Sprintf("%.2f× (%.1f / %.1f ms)", long.lastMsPerStep/long.firstMsPerStep, long.lastMsPerStep, long.firstMsPerStep),
			met: long.generations > 0 && long.lastMsPerStep <= 1.1*long.firstMsPerStep},
		{measure: fmt.Sprintf("run query p99 ms at step %d (%d queries; snapshot %d bytes)", long.steps, s.queries, long.snapshotBytes),
			goal: "≤ 10 ms", measured: fmt.Sprintf("%.1f ms (p50 %.1f; all steps paged back: %.0f ms)", long.queryP99, long.queryP50, long.allStepsMs), met: long.queryP99 <= 10},
	}
}

// waitingRows are the waiting runs' two rows: memory and the inbox.
func waitingRows(waiting waitingResult) []goalRow {
	cache := ""
	if waiting.stickyCache > 0 {
		cache = fmt.Sprintf("; sticky cache %d runs: a decision's signal → post p50 %.0f ms on an evicted run, %.0f ms on a cached one",
			waiting.stickyCache, waiting.evictedMs, waiting.cachedMs)
	}
	return []goalRow{
		{measure: fmt.Sprintf("%d runs waiting for approval%s: worker VmRSS growth per run", waiting.runs, scaledFrom(waiting.runs)),
			goal: "≤ 30 KiB", measured: fmt.Sprintf("%.1f KiB (%.0f KiB in all%s)", waiting.kibPerRun, waiting.rssGrowthKiB, cache), met: waiting.kibPerRun <= 30},
		{measure: fmt.Sprintf("inbox listing %d of the %d waiting actions, slowest of 3 listings", waiting.inboxListed, waiting.runs),
			goal: "≤ 1 s", measured: fmt.Sprintf("%.0f ms (%s)", slices.Max(waiting.inboxMs), msList(waiting.inboxMs)), met: slices.Max(waiting.inboxMs) <= 1000},
	}
}

// scaledFrom says when a report waited on fewer runs than the 10,000.
func scaledFrom(runs int) string {
	if runs >= 10000 {
		return ""
	}
	return " (scaled from 10,000)"
}

// maxHistoryBytes is the history goal of an approved run (issue 24).
const maxHistoryBytes = 10_000

// goalRow is one row of the goal table.
type goalRow struct {
	measure, goal, measured string
	met                     bool
}

func ratioGoal(measure, goal string, agent, base float64, ok func(float64) bool) goalRow {
	ratio := agent / base
	return goalRow{measure: measure, goal: goal, measured: fmt.Sprintf("%.2f× (%.1f / %.1f)", ratio, agent, base), met: ok(ratio)}
}

func atMost(limit float64) func(float64) bool  { return func(r float64) bool { return r <= limit } }
func atLeast(limit float64) func(float64) bool { return func(r float64) bool { return r >= limit } }

// machine is where the report was measured.
type machine struct {
	cpus        int
	model, load string
}

func describeMachine() machine {
	m := machine{cpus: runtime.NumCPU(), model: "unknown", load: "unknown"}
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(info), "\n") {
			if name, ok := strings.CutPrefix(line, "model name"); ok {
				m.model = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), ":"))
				break
			}
		}
	}
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		m.load = strings.Join(strings.Fields(string(load))[:3], " ")
	}
	return m
}

func msList(ms []float64) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = fmt.Sprintf("%.0f", m)
	}
	return strings.Join(parts, ", ") + " ms"
}
