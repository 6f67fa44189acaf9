package e2e

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The in-process table of workflows/actions_test.go, on the real mains: every
// GitHub action, under every fault, with real worker processes SIGKILLed at
// each step boundary and a new one started in their place.

// actionToolTimeout is the runs' ToolTimeout here: a held answer past it is
// a timeout, and a call lost with a killed worker comes back after it.
const actionToolTimeout = 2 * time.Second

// heldMs holds an answer longer than the test ever waits: the worker dies
// with the call in flight.
const heldMs = 120000

// sideEffect is one side-effecting GitHub tool and how to see its effect.
type sideEffect struct {
	tool, agent string
	// write is the sandbox op of the one write; find is the op both the
	// write's own lookup (before it writes) and the reconciliation read.
	write, find string
	// gated says a person approves the action first.
	gated bool
	// reviewModel runs the worker on reviewOnlyModel: the offline model
	// always takes the comment when it may.
	reviewModel bool
	// effects lists what the run made on pull, by the ID a step holds; nil
	// for labels, which say nothing of who added them.
	effects func(s *Sandbox, t testing.TB, pull int, runID string) []string
}

var sideEffects = []sideEffect{
	{tool: api.ToolCreateIssueComment, agent: agents.PRReview, write: ghsandbox.OpCreateComment, find: ghsandbox.OpListComments,
		gated: true, effects: (*Sandbox).runComments},
	{tool: api.ToolCreatePullRequestReview, agent: agents.PRReview, write: ghsandbox.OpCreateReview, find: ghsandbox.OpListReviews,
		gated: true, reviewModel: true, effects: (*Sandbox).runReviews},
	{tool: api.ToolCreateIssue, agent: agents.Triage, write: ghsandbox.OpCreateIssue, find: ghsandbox.OpListIssues,
		gated: true, effects: (*Sandbox).runIssues},
	{tool: api.ToolAddLabels, agent: agents.Triage, write: ghsandbox.OpAddLabels, find: ghsandbox.OpListLabels},
}

// actionFault is one row of the fault table.
type actionFault struct {
	name string
	// faults are queued before the run starts.
	faults func(a sideEffect) []ghsandbox.Fault
	// killAt names the op whose held request is the moment the worker is
	// SIGKILLed; empty for no kill.
	killAt func(a sideEffect) string
	// writes are the faults the write requests met, in order ("" for none):
	// one request under a fault that lets the write happen is the effect
	// found by the reconciliation, never made again.
	writes []string
	// refused says the fault's answer proves nothing happened (a 422): the
	// step fails without an effect or a reconciliation, and the run ends
	// partial.
	refused bool
}

var actionFaults = []actionFault{
	{name: "lost response", writes: []string{ghsandbox.ModeDropResponse}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeDropResponse}}
	}},
	{name: "timeout", writes: []string{ghsandbox.ModeDelay}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeDelay, DelayMs: int((actionToolTimeout + 3*time.Second).Milliseconds())}}
	}},
	{name: "5xx", writes: []string{ghsandbox.ModeStatus, ""}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeStatus, Status: http.StatusBadGateway}}
	}},
	// A rate limit is waited out as GitHub asks, and the step is reconciled
	// before the write is tried again: the limit's answer is not taken as
	// proof that nothing was written.
	{name: "secondary rate limit", writes: []string{ghsandbox.ModeStatus, ""}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeStatus, Status: http.StatusTooManyRequests, RetryAfter: 1}}
	}},
	{name: "primary rate limit", writes: []string{ghsandbox.ModeStatus, ""}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeStatus, Status: http.StatusForbidden, Primary: true, RetryAfter: 1}}
	}},
	{name: "422", writes: []string{ghsandbox.ModeStatus}, refused: true, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeStatus, Status: http.StatusUnprocessableEntity}}
	}},
	// An attempt's first GitHub call is its lookup: held there, the worker
	// dies with the action approved (add_labels is not asked) and unwritten.
	{name: "kill before the write", writes: []string{""}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.find, Mode: ghsandbox.ModeDelay, DelayMs: heldMs}}
	}, killAt: func(a sideEffect) string { return a.find }},
	{name: "kill during create", writes: []string{ghsandbox.ModeDelay}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{{Op: a.write, Mode: ghsandbox.ModeDelay, DelayMs: heldMs}}
	}, killAt: func(a sideEffect) string { return a.write }},
	// The lookup before the write passes; the one after the lost answer is
	// the reconciliation's, and it is held.
	{name: "kill during reconcile", writes: []string{ghsandbox.ModeDropResponse}, faults: func(a sideEffect) []ghsandbox.Fault {
		return []ghsandbox.Fault{
			{Op: a.write, Mode: ghsandbox.ModeDropResponse},
			{Op: a.find, Mode: ghsandbox.ModeDelay, DelayMs: heldMs, After: 1},
		}
	}, killAt: func(a sideEffect) string { return a.find }},
}

func TestFaultEveryActionHappensOnceUnderEveryFault(t *testing.T) {
	bins := builder.Binaries(t)
	pulls := len(sideEffects) * len(actionFaults)
	s := &Stack{
		Bins:    bins,
		Server:  testkit.StartServer(t, testkit.ServerOptions{}),
		Sandbox: StartSandboxWith(t, bins.Sandbox, map[string]string{"SANDBOX_FIXTURE": pullsFixture(t, pulls)}),
	}
	pull := 0
	for _, a := range sideEffects {
		w := &actionWorker{s: s, queue: "faults-" + a.tool}
		if a.reviewModel {
			w.modelEnv = openAIEnv(reviewOnlyModel(t).URL)
		}
		for _, f := range actionFaults {
			pull++
			t.Run(a.tool+"/"+f.name, func(t *testing.T) {
				w.ensure(t)
				actionCase{s: s, a: a, f: f, pull: pull, worker: w}.run(t)
			})
		}
		if w.p != nil { // nil when -run left out every case of this tool
			w.p.Kill()
		}
	}
}

// actionWorker is the one worker process of an action's rows: the rows
// without a kill share it, and a kill replaces it.
type actionWorker struct {
	s        *Stack
	queue    string
	modelEnv map[string]string
	p        *Process
}

// ensure starts a worker unless one is running. A worker belongs to the test
// that started it and dies with it, so a row after a kill starts its own.
func (w *actionWorker) ensure(t *testing.T) {
	t.Helper()
	if w.p != nil {
		if done, _ := w.p.Exited(); !done {
			return
		}
	}
	w.p = w.s.StartWorkerOn(t, w.queue, w.modelEnv)
}

// restart SIGKILLs the worker and starts another in its place.
func (w *actionWorker) restart(t *testing.T) {
	t.Helper()
	w.p.Kill()
	w.p = w.s.StartWorkerOn(t, w.queue, w.modelEnv)
}

// actionCase is one cell of the table: one run on its own pull request.
type actionCase struct {
	s      *Stack
	a      sideEffect
	f      actionFault
	pull   int
	worker *actionWorker
}

func (c actionCase) run(t *testing.T) {
	runID := fmt.Sprintf("fault-%s-%d", strings.ReplaceAll(c.a.tool, "_", "-"), c.pull)
	since := len(c.s.Sandbox.Requests(t))
	c.s.Sandbox.AddFaults(t, c.f.faults(c.a)...)
	in := ReviewInput(actionToolTimeout)
	in.Agent, in.PullNumber = c.a.agent, c.pull
	MustStartRun(t, c.s.Client(), c.worker.queue, runID, in)

	killAt := ""
	if c.f.killAt != nil {
		killAt = c.f.killAt(c.a)
	}
	snap, killed := c.drive(t, runID, since, killAt)
	require.Equal(t, killAt != "", killed, "the worker was killed at the %s boundary", c.f.name)

	res := WaitForResult(t, c.s.Client(), runID, runTimeout)
	require.Equal(t, api.RunCompleted, res.Status, res.Error)
	require.Empty(t, c.s.Sandbox.Faults(t), "every injected fault was met")
	steps := toolSteps(snap, c.a.tool)
	require.Len(t, steps, 1, "one %s step: %s", c.a.tool, Describe(snap))
	step := steps[0]
	if c.f.refused {
		c.requireRefused(t, runID, snap, step, since)
		return
	}
	require.Equal(t, api.StepSucceeded, step.Status, step.Error)
	require.NotEmpty(t, step.ExternalResourceID, "the step holds what it made")
	c.requireApprovedIfGated(t, snap, step)
	log := c.s.Sandbox.Requests(t)[since:]
	c.requireOneEffect(t, runID, step, log)
	require.Equal(t, 1, toolResults(t, c.s.Client(), runID, step.CallID), "the result joined the conversation once")
	c.requireReconciled(t, runID, step, log)
	t.Logf("%s: %s requests %v, %s requests %v", c.f.name, c.a.write, statuses(RequestsFor(log, c.a.write)),
		c.a.find, statuses(RequestsFor(log, c.a.find)))
}

// requireRefused checks a write GitHub refused: tried once, the step
// failed with GitHub's reason and holds nothing, it was never unknown (so
// never reconciled), nothing was made, and the run says it is partial.
func (c actionCase) requireRefused(t *testing.T, runID string, snap api.RunSnapshot, step api.AgentStep, since int) {
	t.Helper()
	require.Equal(t, api.StepFailed, step.Status)
	require.Contains(t, step.Error, "422")
	require.Empty(t, step.ExternalResourceID)
	c.requireApprovedIfGated(t, snap, step)
	log := c.s.Sandbox.Requests(t)[since:]
	require.Equal(t, []int{http.StatusUnprocessableEntity}, statuses(RequestsFor(log, c.a.write)), "the write was tried once")
	for _, e := range MustEvents(t, c.s.Client(), runID) {
		require.False(t, e.StepID == step.ID && e.Status == string(api.StepOutcomeUnknown), "a refusal is not an unknown outcome")
	}
	if c.a.effects != nil {
		require.Empty(t, c.a.effects(c.s.Sandbox, t, c.pull, runID))
	} else {
		require.Empty(t, c.s.Sandbox.pullLabels(t, c.pull, runID))
	}
	require.Equal(t, api.OutcomePartial, snap.Run.Outcome)
}

// requireApprovedIfGated: a gated step ran on exactly one approval; an
// ungated one was never put to a person.
func (c actionCase) requireApprovedIfGated(t *testing.T, snap api.RunSnapshot, step api.AgentStep) {
	t.Helper()
	var decided []api.ActionState
	for _, pa := range snap.Actions {
		if pa.StepID == step.ID {
			decided = append(decided, pa.State)
		}
	}
	if c.a.gated {
		require.Equal(t, []api.ActionState{api.ActionApproved}, decided, "the step ran on one approval")
	} else {
		require.Empty(t, decided, "%s is not asked in %s", c.a.tool, c.a.agent)
	}
}

// requireOneEffect checks the effect on the wire (one write performed) and
// as a user sees it (one comment, review or issue, or each label once).
func (c actionCase) requireOneEffect(t *testing.T, runID string, step api.AgentStep, log []ghsandbox.RequestRecord) {
	t.Helper()
	performed := 0
	for _, r := range RequestsFor(log, c.a.write) {
		if r.Status >= 200 && r.Status < 300 {
			performed++
		}
	}
	require.Equal(t, 1, performed, "%s was performed once: %v", c.a.write, statuses(RequestsFor(log, c.a.write)))
	if c.a.effects != nil {
		require.Equal(t, []string{step.ExternalResourceID}, c.a.effects(c.s.Sandbox, t, c.pull, runID),
			"exactly one %s, the one the step holds", c.a.tool)
	} else {
		have := c.s.Sandbox.pullLabels(t, c.pull, runID)
		for _, label := range strings.Split(step.ExternalResourceID, ",") {
			require.Equal(t, 1, occurrences(have, label), "label %q once among %v", label, have)
		}
	}
}

// requireReconciled checks that the row took the path it names: the fault
// left the step's outcome unknown, and the write requests met the faults the
// row expects, so that an effect made before the unknown was found, not made again.
func (c actionCase) requireReconciled(t *testing.T, runID string, step api.AgentStep, log []ghsandbox.RequestRecord) {
	t.Helper()
	unknown := 0
	for _, e := range MustEvents(t, c.s.Client(), runID) {
		if e.StepID == step.ID && e.Type == api.EventStepStatus && e.Status == string(api.StepOutcomeUnknown) {
			unknown++
		}
	}
	require.GreaterOrEqual(t, unknown, 1, "step %s went outcome_unknown", step.ID)
	var met []string
	for _, r := range RequestsFor(log, c.a.write) {
		met = append(met, r.Fault)
	}
	require.Equal(t, c.f.writes, met, "the faults the %s requests met", c.a.write)
}

// drive takes the run to completion: it approves each action as alice when
// it waits, and SIGKILLs the worker (starting another) once a request for
// killAt is in the sandbox's log with its answer held.
func (c actionCase) drive(t *testing.T, runID string, since int, killAt string) (api.RunSnapshot, bool) {
	t.Helper()
	killed := false
	approved := map[string]bool{}
	snap := Eventually(t, runTimeout, "run "+runID+" to complete", func() (api.RunSnapshot, bool, string) {
		if killAt != "" && !killed && held(c.s.Sandbox.Requests(t)[since:], killAt) {
			c.worker.restart(t)
			killed = true
		}
		snap, err := Snapshot(context.Background(), c.s.Client(), runID)
		if err != nil {
			return snap, false, err.Error()
		}
		for _, pa := range snap.Actions {
			if pa.State != api.ActionWaiting || approved[pa.ID] {
				continue
			}
			if err := Approve(context.Background(), c.s.Client(), runID, pa.ID, "alice", "e2e-"+pa.ID); err != nil {
				return snap, false, err.Error()
			}
			approved[pa.ID] = true
		}
		return snap, snap.Run.Status == api.RunCompleted, Describe(snap)
	})
	return snap, killed
}

// held reports whether a request for op met a delay fault.
func held(log []ghsandbox.RequestRecord, op string) bool {
	return slices.ContainsFunc(RequestsFor(log, op), func(r ghsandbox.RequestRecord) bool {
		return r.Fault == ghsandbox.ModeDelay
	})
}

func occurrences(ss []string, s string) int {
	n := 0
	for _, x := range ss {
		if x == s {
			n++
		}
	}
	return n
}
