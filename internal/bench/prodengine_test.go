package bench

// The production engine's cost of an approved run: the Temporal server on
// PostgreSQL with fsync and synchronous commits on (internal/prodstack),
// what agentrun spends in commits, WAL and engine CPU per approved run,
// against the fixed bare shape (bareShape, 0.1.0's) on the same cluster.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/internal/prodstack"
)

const (
	prodBegin = "<!-- make bench: production engine begin -->"
	prodEnd   = "<!-- make bench: production engine end -->"
	// prodRounds interleave the two contenders and an idle window,
	// prodRunsPerBlock sequential runs a block.
	prodRounds       = 3
	prodRunsPerBlock = 20
	// prodIdleWindow is how long the idle cluster is watched, each round,
	// for what its own background work spends, which the blocks' figures
	// leave out.
	prodIdleWindow = 5 * time.Second
	// prodStatsSettle is how long a reading waits after the last run for
	// the backends to report their transactions to pg_stat_database,
	// which a busy backend does at most a second after its transaction.
	prodStatsSettle = 1500 * time.Millisecond
)

// before010 is what 0.1.0 (commit 66595e7) spent per approved run, measured
// by this test on this machine on 2026-12-02 at 01:48 UTC, on a quiet
// machine: the goal is half of it.
var before010 = prodCost{Commits: 167.4, WALBytes: 214196, EngineCPU: 275400 * time.Microsecond}

// prodCost is the engine's cost of one approved run.
type prodCost struct {
	Commits   float64
	WALBytes  float64
	ServerCPU time.Duration
	DBCPU     time.Duration
	EngineCPU time.Duration
	// ProcessCPU is this process's: the worker, the driver and the sandbox.
	ProcessCPU time.Duration
	Wall       time.Duration
}

// TestProdEngineCostPerApprovedRun measures the production engine's cost of
// an approved run; `make bench` runs it into docs/benchmarks.md. It asserts
// what each run did (completed, one comment), never a cost.
func TestProdEngineCostPerApprovedRun(t *testing.T) {
	if os.Getenv("AGENTRUN_BENCH") != "full" {
		t.Skip("make bench runs it (AGENTRUN_BENCH=full): it starts PostgreSQL and the Temporal server")
	}
	started := time.Now().UTC()
	cluster := prodstack.StartWith(t, prodstack.Options{Durable: true})
	rig := rigOn(t, cluster.Client(), 0)
	ctx := context.Background()

	var idle prodstack.Usage
	var idleTime time.Duration
	spent := map[string][]prodSpent{}
	for range prodRounds {
		u, d := idleWindow(t, ctx, cluster)
		idle, idleTime = idle.Plus(u), idleTime+d
		for _, k := range []contender{rig.agentRun(), rig.baseline()} {
			spent[k.name()] = append(spent[k.name()], prodBlock(t, ctx, rig, cluster, k))
		}
	}
	rate := perSecond(idle, idleTime)
	agent, bare := meanCost(spent["agentrun"], rate), meanCost(spent["baseline"], rate)
	report := renderProdReport(started, rate, agent, bare)
	t.Log("\n" + report)
	if out := os.Getenv("AGENTRUN_BENCH_OUT"); out != "" {
		require.NoError(t, replaceBetween(out, prodBegin, prodEnd, report))
	}
}

// idleWindow is what the cluster spends with no run, over
// prodIdleWindow, and how long it watched.
func idleWindow(t *testing.T, ctx context.Context, c *prodstack.Cluster) (prodstack.Usage, time.Duration) {
	t.Helper()
	before, err := c.Usage(ctx)
	require.NoError(t, err)
	begin := time.Now()
	<-time.After(prodIdleWindow)
	after, err := c.Usage(ctx)
	require.NoError(t, err)
	return after.Since(before), time.Since(begin)
}

func perSecond(u prodstack.Usage, d time.Duration) prodstack.Usage {
	f := float64(time.Second) / float64(d)
	return prodstack.Usage{
		Commits: int64(float64(u.Commits) * f), WALBytes: int64(float64(u.WALBytes) * f),
		ServerCPU: time.Duration(float64(u.ServerCPU) * f), DatabaseCPU: time.Duration(float64(u.DatabaseCPU) * f),
	}
}

// prodSpent is what one block of runs spent, between its two readings.
type prodSpent struct {
	usage      prodstack.Usage
	between    time.Duration // from the first reading to the second
	runs       time.Duration // the runs alone
	processCPU time.Duration
}

// prodBlock runs prodRunsPerBlock sequential runs of k and reads what the
// engine spent from before the first until the statistics of the last
// have settled.
func prodBlock(t *testing.T, ctx context.Context, rig *overheadRig, c *prodstack.Cluster, k contender) prodSpent {
	t.Helper()
	before, err := c.Usage(ctx)
	require.NoError(t, err)
	cpuBefore := processCPU(t)
	begin := time.Now()
	for range prodRunsPerBlock {
		_, err := rig.runBatch(ctx, k, 1)
		require.NoError(t, err, k.name())
	}
	runs := time.Since(begin)
	cpu := processCPU(t) - cpuBefore
	<-time.After(prodStatsSettle)
	between := time.Since(begin)
	after, err := c.Usage(ctx)
	require.NoError(t, err)
	return prodSpent{usage: after.Since(before), between: between, runs: runs, processCPU: cpu}
}

// processCPU is this process's user and system time so far.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// meanCost is the cost of one run over blocks, less what the idle
// cluster spends at rate in each block's time.
func meanCost(blocks []prodSpent, rate prodstack.Usage) prodCost {
	var m prodCost
	n := float64(len(blocks) * prodRunsPerBlock)
	for _, b := range blocks {
		secs := b.between.Seconds()
		m.Commits += (float64(b.usage.Commits) - float64(rate.Commits)*secs) / n
		m.WALBytes += (float64(b.usage.WALBytes) - float64(rate.WALBytes)*secs) / n
		m.ServerCPU += time.Duration((float64(b.usage.ServerCPU) - float64(rate.ServerCPU)*secs) / n)
		m.DBCPU += time.Duration((float64(b.usage.DatabaseCPU) - float64(rate.DatabaseCPU)*secs) / n)
		m.ProcessCPU += time.Duration(float64(b.processCPU) / n)
		m.Wall += time.Duration(float64(b.runs) / n)
	}
	m.EngineCPU = m.ServerCPU + m.DBCPU
	return m
}

func renderProdReport(started time.Time, idle prodstack.Usage, agent, bare prodCost) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Measured %s (UTC) by `make bench` (`AGENTRUN_BENCH=full go test ./internal/bench -run '^TestProdEngineCostPerApprovedRun$' -count=1 -v`):\n", started.Format("2006-01-02 15:04"))
	fmt.Fprintf(&sb, "Temporal server %s on PostgreSQL with fsync and synchronous_commit on, mTLS and encrypted payloads; %d rounds of %d sequential approved runs per side, interleaved.\n", prodstack.ServerVersion, prodRounds, prodRunsPerBlock)
	fmt.Fprintf(&sb, "Each block is read once its statistics have settled (%s after its last run), and leaves out what the idle cluster spends in the same time (watched %s a round: %d commits/s, %d WAL bytes/s, %.0f ms/s of engine CPU).\n\n",
		prodStatsSettle, prodIdleWindow, idle.Commits, idle.WALBytes, ms(idle.ServerCPU+idle.DatabaseCPU))
	sb.WriteString("| per approved run | agentrun | bare (fixed shape) | agentrun / bare | 0.1.0 | goal (≤ half of 0.1.0) |\n|---|---:|---:|---:|---:|---|\n")
	goal := func(now, then float64) string {
		if then <= 0 {
			return "0.1.0 not measured"
		}
		if now <= then/2 {
			return fmt.Sprintf("met (%.2f×)", now/then)
		}
		return fmt.Sprintf("**not met** (%.2f×)", now/then)
	}
	fmt.Fprintf(&sb, "| PostgreSQL commits | %.1f | %.1f | %.2f× | %.1f | %s |\n", agent.Commits, bare.Commits, agent.Commits/bare.Commits, before010.Commits, goal(agent.Commits, before010.Commits))
	fmt.Fprintf(&sb, "| WAL bytes | %.0f | %.0f | %.2f× | %.0f | |\n", agent.WALBytes, bare.WALBytes, agent.WALBytes/bare.WALBytes, before010.WALBytes)
	fmt.Fprintf(&sb, "| engine CPU ms (server + database) | %.1f | %.1f | %.2f× | %.1f | %s |\n", ms(agent.EngineCPU), ms(bare.EngineCPU), ms(agent.EngineCPU)/ms(bare.EngineCPU), ms(before010.EngineCPU), goal(ms(agent.EngineCPU), ms(before010.EngineCPU)))
	fmt.Fprintf(&sb, "| server CPU ms | %.1f | %.1f | %.2f× | | |\n", ms(agent.ServerCPU), ms(bare.ServerCPU), ms(agent.ServerCPU)/ms(bare.ServerCPU))
	fmt.Fprintf(&sb, "| database CPU ms | %.1f | %.1f | %.2f× | | |\n", ms(agent.DBCPU), ms(bare.DBCPU), ms(agent.DBCPU)/ms(bare.DBCPU))
	fmt.Fprintf(&sb, "| bench process CPU ms (worker, driver, sandbox) | %.1f | %.1f | %.2f× | | |\n", ms(agent.ProcessCPU), ms(bare.ProcessCPU), ms(agent.ProcessCPU)/ms(bare.ProcessCPU))
	fmt.Fprintf(&sb, "| wall ms, sequential | %.1f | %.1f | %.2f× | | |\n", ms(agent.Wall), ms(bare.Wall), ms(agent.Wall)/ms(bare.Wall))
	return sb.String()
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
