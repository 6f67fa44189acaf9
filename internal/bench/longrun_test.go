package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/github"
	"github.com/agentrun/agentrun/internal/agentworker"
	"github.com/stretchr/testify/require"
)

const longRunQueue = "bench-long-run"

// longModel reads the pull request once per turn until the goal's number
// of turns, then holds its final call until released, so that the run
// query can be measured on a run at its last step. It keeps the start time
// of every call, indexed by turn.
type longModel struct {
	mu      sync.Mutex
	starts  map[int]time.Time
	atLast  chan struct{} // closed when the final call begins
	release chan struct{} // closed by the driver to let it answer
	once    sync.Once
}

func newLongModel() *longModel {
	return &longModel{starts: map[int]time.Time{}, atLast: make(chan struct{}), release: make(chan struct{})}
}

func (m *longModel) Next(ctx context.Context, conversation []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	turns, asked, err := turnsAsked(conversation)
	if err != nil {
		return api.ModelDecision{}, err
	}
	m.mu.Lock()
	if _, seen := m.starts[asked]; !seen {
		m.starts[asked] = time.Now()
	}
	m.mu.Unlock()
	usage := api.Usage{PromptTokens: int64(len(conversation)), CompletionTokens: 1}
	if asked < turns {
		call := api.ToolCall{ID: fmt.Sprintf("call_%d", asked), Name: api.ToolGetPullRequest, Arguments: json.RawMessage(`{}`)}
		return api.ModelDecision{ToolCalls: []api.ToolCall{call}, Usage: usage}, nil
	}
	m.once.Do(func() { close(m.atLast) })
	select {
	case <-m.release:
	case <-ctx.Done():
		return api.ModelDecision{}, fmt.Errorf("final call held: %w", ctx.Err())
	}
	return api.ModelDecision{Final: fmt.Sprintf("read the pull request %d times", asked), Usage: usage}, nil
}

// startTimes returns the start of each turn 0..turns.
func (m *longModel) startTimes(turns int) ([]time.Time, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]time.Time, turns+1)
	for i := range out {
		t, ok := m.starts[i]
		if !ok {
			return nil, fmt.Errorf("turn %d never called the model", i)
		}
		out[i] = t
	}
	return out, nil
}

// longRunResult is what the long-run row reports.
type longRunResult struct {
	steps       int // steps in the snapshot when the run query was measured
	generations int
	// firstMsPerStep and lastMsPerStep are the mean step times over the
	// first and the last window of steps.
	firstMsPerStep, lastMsPerStep float64
	windowSteps                   int
	queryP50, queryP99            float64 // ms
	snapshotBytes                 int
	// allStepsMs is one SnapshotAllSteps: every step, as the run query
	// answered before it paged them.
	allStepsMs float64
}

// measureLongRun runs one AgentRun of turns model/tool turns (two steps
// each) that continues as new past historyThreshold events, asks its run
// query queries times while its final model call is held, and checks that
// it completes with the expected answer.
func (r *overheadRig) measureLongRun(ctx context.Context, turns, historyThreshold, queries int) (longRunResult, error) {
	return r.measureLongRunOn(ctx, turns, historyThreshold, queries, func(acts *activities.Activities) worker.Worker {
		return agentworker.NewWithActivities(r.client, longRunQueue, acts)
	})
}

// measureLongRunOn is measureLongRun on the worker newWorker makes of the
// long run's activities, polling longRunQueue.
func (r *overheadRig) measureLongRunOn(ctx context.Context, turns, historyThreshold, queries int,
	newWorker func(acts *activities.Activities) worker.Worker) (longRunResult, error) {
	var res longRunResult
	m := newLongModel()
	w := newWorker(&activities.Activities{GitHub: github.NewAccess(r.ghClient, nil, r.sandbox.BotLogin()), Model: m})
	if err := w.Start(); err != nil {
		return res, fmt.Errorf("start the long-run worker: %w", err)
	}
	defer w.Stop()
	id := fmt.Sprintf("long-run-%d", time.Now().UnixNano())
	in := api.RunInput{
		Repo: benchRepoOwner + "/" + benchRepoName, PullNumber: firstBenchPull, UserID: "bench",
		Goal: turnsPrefix + strconv.Itoa(turns), MaxSteps: turns + 1, HistoryThreshold: historyThreshold,
		ToolTimeout: 10 * time.Second,
	}
	run, err := r.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: longRunQueue}, api.WorkflowName, in)
	if err != nil {
		return res, fmt.Errorf("start long run: %w", err)
	}
	select {
	case <-m.atLast:
	case <-ctx.Done():
		return res, fmt.Errorf("long run %s never reached its last turn: %w", id, ctx.Err())
	}
	lat := make([]time.Duration, 0, queries)
	for range queries {
		start := time.Now()
		snap, err := r.runs.Snapshot(ctx, id)
		if err != nil {
			close(m.release)
			return res, fmt.Errorf("query long run %s: %w", id, err)
		}
		lat = append(lat, time.Since(start))
		res.steps, res.generations = snap.Checkpoint.StepSequence, snap.Run.Generation
		if body, err := json.Marshal(snap); err == nil {
			res.snapshotBytes = len(body)
		}
	}
	// Paging is what keeps the query flat: the older steps must still all be there.
	pagedStart := time.Now()
	all, err := r.runs.SnapshotAllSteps(ctx, id)
	res.allStepsMs = msPer(time.Since(pagedStart), 1)
	close(m.release)
	if err != nil {
		return res, fmt.Errorf("all steps of long run %s: %w", id, err)
	}
	if len(all.Steps) != all.StepCount || len(all.Steps) < 2*turns {
		return res, fmt.Errorf("long run %s: paged %d steps of %d, want at least %d", id, len(all.Steps), all.StepCount, 2*turns)
	}
	for i, st := range all.Steps {
		if st.Sequence != i+1 {
			return res, fmt.Errorf("long run %s: step %d of the pages has sequence %d", id, i, st.Sequence)
		}
	}
	var out api.RunResult
	if err := run.Get(ctx, &out); err != nil {
		return res, fmt.Errorf("long run %s: %w", id, err)
	}
	if want := fmt.Sprintf("read the pull request %d times", turns); out.Answer != want {
		return res, fmt.Errorf("long run %s answered %q (%s), want %q", id, out.Answer, out.Status, want)
	}
	starts, err := m.startTimes(turns)
	if err != nil {
		return res, err
	}
	// A turn is two steps (the model call and its tool call).
	window := max(turns/10, 1)
	res.windowSteps = 2 * window
	res.firstMsPerStep = msPer(starts[window].Sub(starts[0]), res.windowSteps)
	res.lastMsPerStep = msPer(starts[turns].Sub(starts[turns-window]), res.windowSteps)
	res.queryP50, res.queryP99 = percentileMs(lat, 50), percentileMs(lat, 99)
	return res, nil
}

// TestBenchLongRunRows measures only the long run's rows of the report, to
// tune them without the whole of `make bench`:
// AGENTRUN_BENCH=full go test ./internal/bench -run TestBenchLongRunRows -v -count=1
func TestBenchLongRunRows(t *testing.T) {
	env := requireRowBench(t)
	stopProfile := startCPUProfile(t, env.cpuProfile)
	rig := startOverheadRig(t)
	long, err := rig.measureLongRun(context.Background(), env.scale.longTurns, env.scale.longHistoryThreshold, env.scale.queries)
	require.NoError(t, err)
	logRows(t, longRunRows(long, env.scale), stopProfile())
}

// requireRowBench skips a one-row test unless AGENTRUN_BENCH asks for it
// (full, or any other value for the smoke scale).
func requireRowBench(t *testing.T) benchEnv {
	t.Helper()
	if os.Getenv("AGENTRUN_BENCH") == "" {
		t.Skip("one row of make bench: set AGENTRUN_BENCH=full (or smoke)")
	}
	return readBenchEnv()
}

func logRows(t *testing.T, rows []goalRow, profileTop string) {
	t.Helper()
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("load average at the end: %s", strings.TrimSpace(string(load)))
	for _, r := range rows {
		t.Logf("%s | %s | %s | met %v", r.measure, r.goal, r.measured, r.met)
	}
	if profileTop != "" {
		t.Log("\n" + profileTop)
	}
}
