package e2e

import (
	"context"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/agents"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
)

// The crash-point sweep: for an approved run of each built-in agent and of
// the example's tickets agent, one run per kill point, whose worker the
// kill gate SIGKILLs once the run's history holds N events (just after the
// write that brought it there, or just before the next one) and replaced by
// a new one that finishes the run. N runs from the first event to the last
// of a run never killed. `make test-faults` runs a sample of the points
// (sweepSample); AGENTRUN_SWEEP=full (make test-sweep) runs every one on
// both sides of the write.

// sweepSample is how many kill points per agent the fault suite runs:
// spread evenly over the run, always its first and its last event, the
// sides of the write in turn.
const sweepSample = 4

// sweepPulls is how many pull requests the sweep's fixture holds: a run of
// a GitHub agent takes one of its own, so that its labels are its own. The
// full sweep's runs of pr-review and triage take 142.
const sweepPulls = 160

// sweepRunTimeout bounds one run of the sweep: a kill inside a workflow task
// costs the task's 10 s timeout, one in a GitHub write its reconciliation.
const sweepRunTimeout = 3 * time.Minute

// sweepFull reports whether AGENTRUN_SWEEP=full asks for every kill point.
func sweepFull() bool { return os.Getenv("AGENTRUN_SWEEP") == "full" }

// sweepAgent is one agent the sweep runs, with its worker and its effects.
type sweepAgent struct {
	name, queue string
	// startWorker starts a worker of queue, SIGKILLed when t ends at the latest.
	startWorker func(t *testing.T) *Process
	// input is a run's input; with ownPull, pull is a pull request no other
	// run acts on.
	input   func(pull int) api.RunInput
	ownPull bool
	// gated is the tool of the run's one approved action.
	gated string
	// effects lists, for each tool with a side effect, what the run made
	// with it as the service shows it: one entry per effect, each the ID
	// its step holds (for labels, the names on the run's own pull request).
	effects map[string]func(t *testing.T, runID string, pull int) []string
}

func TestFaultCrashPointSweepEveryAgentActsOnceWhereverItsWorkerIsKilled(t *testing.T) {
	bins := builder.Binaries(t)
	s := &Stack{
		Bins:    bins,
		Server:  testkit.StartServer(t, testkit.ServerOptions{}),
		Sandbox: StartSandboxWith(t, bins.Sandbox, map[string]string{"SANDBOX_FIXTURE": pullsFixture(t, sweepPulls)}),
		Queue:   "sweep-builtin",
	}
	tickets := &ticketService{}
	ticketsSrv := httptest.NewServer(tickets)
	t.Cleanup(ticketsSrv.Close)
	sample := sweepSample
	if sweepFull() {
		sample = 0
	}
	gate := StartKillGate(t, s.Server.Address(), s.Client())
	sw := &sweeper{s: s, gate: gate, sample: sample}
	for _, a := range sweepAgents(s, gate.Address(), exampleBinary(t), tickets, ticketsSrv.URL) {
		t.Run(a.name, func(t *testing.T) { sw.sweep(t, a) })
	}
	t.Log(sw.summary())
}

// sweepAgents are the agents the sweep runs; their workers reach Temporal
// through temporal, the kill gate.
func sweepAgents(s *Stack, temporal, exampleBin string, tickets *ticketService, ticketsURL string) []sweepAgent {
	github := map[string]string{"GITHUB_API_URL": s.Sandbox.APIURL(), "GITHUB_TOKEN": "e2e-token", "TEMPORAL_ADDRESS": temporal}
	builtin := func(t *testing.T) *Process { return startRecommenderWorker(t, s, github) }
	pullInput := func(agent string) func(int) api.RunInput {
		return func(pull int) api.RunInput {
			in := ReviewInput(toolTimeout)
			in.Agent, in.PullNumber = agent, pull
			return in
		}
	}
	targetInput := func(agent, goal string, target api.Target) func(int) api.RunInput {
		return func(int) api.RunInput {
			in := api.RunInput{UserID: "carol", Agent: agent, Goal: goal, Approvers: []string{"alice"}, ToolTimeout: toolTimeout}
			return in.WithTarget(target)
		}
	}
	const ticketsQueue = "sweep-tickets"
	return []sweepAgent{
		{
			name: agents.PRReview, queue: s.Queue, startWorker: builtin, input: pullInput(agents.PRReview), ownPull: true,
			gated: api.ToolCreateIssueComment,
			effects: map[string]func(*testing.T, string, int) []string{
				api.ToolCreateIssueComment: func(t *testing.T, runID string, pull int) []string {
					return s.Sandbox.runComments(t, pull, runID)
				},
			},
		},
		{
			name: agents.Triage, queue: s.Queue, startWorker: builtin, input: pullInput(agents.Triage), ownPull: true,
			gated: api.ToolCreateIssue,
			effects: map[string]func(*testing.T, string, int) []string{
				api.ToolCreateIssue: func(t *testing.T, runID string, pull int) []string {
					return s.Sandbox.runIssues(t, pull, runID)
				},
				api.ToolAddLabels: func(t *testing.T, _ string, pull int) []string {
					return []string{joinNames(s.Sandbox.labels(t, pull))}
				},
			},
		},
		{
			name: agents.Recommend, queue: s.Queue, startWorker: builtin,
			input: targetInput(agents.Recommend, "somewhere for two to talk, about 150, coupons welcome", api.Target{
				Kind: agents.TargetRecommendation, Fields: map[string]string{"city": "riverside", "party_size": "2", "budget": "150"}}),
			gated: agents.SaveRecommendation,
			effects: map[string]func(*testing.T, string, int) []string{
				agents.SaveRecommendation: func(t *testing.T, runID string, _ int) []string {
					var ids []string
					for _, r := range s.Sandbox.recommendations(t) {
						if RunIDOfKey(r.IdempotencyKey) == runID {
							ids = append(ids, r.ID)
						}
					}
					return ids
				},
			},
		},
		{
			name: "tickets", queue: ticketsQueue,
			startWorker: func(t *testing.T) *Process {
				p := StartProcess(t, ProcessSpec{Name: "customtool-sweep", Binary: exampleBin, Env: map[string]string{
					"TEMPORAL_ADDRESS": temporal,
					"AGENT_TASK_QUEUE": ticketsQueue,
					"TICKETS_URL":      ticketsURL,
				}})
				WaitUntilPolling(t, s.Client(), ticketsQueue, p)
				return p
			},
			input: targetInput("tickets", "Flaky test in the cache", api.Target{
				Kind: "support_queue", Fields: map[string]string{"queue": "support"}}),
			gated: "create_ticket",
			effects: map[string]func(*testing.T, string, int) []string{
				"create_ticket": func(_ *testing.T, runID string, _ int) []string { return tickets.madeBy(runID) },
			},
		},
	}
}

// madeBy lists the IDs of the tickets whose external_id is one of runID's operationKeys.
func (s *ticketService) madeBy(runID string) []string {
	held, _ := s.held()
	var ids []string
	for _, t := range held {
		if RunIDOfKey(t.ExternalID) == runID {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// sweeper runs the sweep of each agent on one stack and keeps its tally.
type sweeper struct {
	s      *Stack
	gate   *KillGate
	sample int
	pulls  int
	tally  []sweepTally
}

// sweepTally is what one agent's sweep did.
type sweepTally struct {
	agent string
	// events is the length of the run never killed: the sweep's last point.
	events int
	points []CrashPoint
	wall   time.Duration
}

// sweepKill is one kill point: a history length and a side of the write.
type sweepKill struct {
	target int
	mode   KillMode
}

// sweepKills are the kill points of an agent whose whole run has events
// events: with sample 0, every event on both sides of the write; else
// sample points spread over the run (SweepPoints), the sides in turn.
func sweepKills(events, sample int) []sweepKill {
	var kills []sweepKill
	for i, target := range SweepPoints(events, sample) {
		switch {
		case sample == 0:
			kills = append(kills, sweepKill{target, KillAfterWrite}, sweepKill{target, KillBeforeWrite})
		case i%2 == 0:
			kills = append(kills, sweepKill{target, KillBeforeWrite})
		default:
			kills = append(kills, sweepKill{target, KillAfterWrite})
		}
	}
	return kills
}

// sweepWorker is the one live worker of an agent's sweep, behind the gate.
type sweepWorker struct {
	t    *testing.T
	a    sweepAgent
	gate *KillGate
	p    *Process
}

// ensure starts a worker unless one is running: at the sweep's start, and
// after each kill.
func (w *sweepWorker) ensure() {
	if w.p != nil {
		if done, _ := w.p.Exited(); !done {
			return
		}
	}
	w.p = w.a.startWorker(w.t)
	w.gate.Serve(w.p)
}

// sweep runs a as the sweep asks: once never killed, to learn how many
// events a whole approved run has, then once per kill point, one after
// another. The worker that finishes one run serves the next one's start.
func (sw *sweeper) sweep(t *testing.T, a sweepAgent) {
	began := time.Now()
	w := &sweepWorker{t: t, a: a, gate: sw.gate}
	w.ensure()
	whole, history := sw.run(t, a, w, 0, "")
	if t.Failed() {
		return
	}
	t.Logf("%s: a whole approved run's history: %s", a.name, numbered(history))
	tally := sweepTally{agent: a.name, events: whole.Final}
	for _, p := range sweepKills(whole.Final, sw.sample) {
		point, _ := sw.run(t, a, w, p.target, p.mode)
		t.Logf("%s %s", a.name, point)
		tally.points = append(tally.points, point)
	}
	tally.wall = time.Since(began)
	sw.tally = append(sw.tally, tally)
	t.Log(tally)
}

func (tl sweepTally) String() string {
	killed, landed := 0, map[string]bool{}
	for _, p := range tl.points {
		if p.Killed {
			killed++
			landed[fmt.Sprintf("%d %s", p.At, p.Mode)] = true
		}
	}
	return fmt.Sprintf("%s: a whole run has %d events; %d kill points, %d killed, in %d distinct states (history length and side); %s",
		tl.agent, tl.events, len(tl.points), killed, len(landed), tl.wall.Round(time.Second))
}

func (sw *sweeper) summary() string {
	total, wall := 0, time.Duration(0)
	lines := ""
	for _, tl := range sw.tally {
		total += len(tl.points)
		wall += tl.wall
		lines += "\n  " + tl.String()
	}
	return fmt.Sprintf("crash-point sweep (sample %d; 0 is every point): %d kill points in %s%s", sw.sample, total, wall.Round(time.Second), lines)
}

// run starts one run of a, approves its action as alice whenever it waits,
// has the gate SIGKILL its worker once its history holds target events
// (0: never), and checks the run once it closes. A failed check is
// reported and the sweep goes on to the next point.
func (sw *sweeper) run(t *testing.T, a sweepAgent, w *sweepWorker, target int, mode KillMode) (CrashPoint, []string) {
	t.Helper()
	c := sw.s.Client()
	pull := 0
	if a.ownPull {
		sw.pulls++
		pull = sw.pulls
		if pull > sweepPulls {
			t.Fatalf("the sweep's fixture holds %d pull requests; run %d needs one more", sweepPulls, pull)
		}
	}
	runID := fmt.Sprintf("sweep-%s-%d", a.name, target)
	if mode != "" {
		runID += "-" + strings.Fields(string(mode))[0]
	}
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), sweepRunTimeout)
	defer cancel()
	if target > 0 {
		sw.gate.Arm(runID, target, mode)
	}
	MustStartRun(t, c, a.queue, runID, a.input(pull))
	approved := map[string]bool{}
	trace, err := FollowRun(ctx, c, runID, RunHooks{
		Killed:  sw.gate.Kills(),
		Restart: w.ensure,
		Waiting: func(actionIDs []string) error {
			// A run that waits writes nothing until the approval: a kill
			// before its next write is due now.
			sw.gate.Settle(ctx)
			return approve(ctx, c, runID, actionIDs, approved)
		},
	})
	// A kill by the run's last write may come just after the history says
	// the run closed, and one before its next write never meets a write:
	// Settle makes it, and both wait for a write in flight.
	sw.gate.Settle(ctx)
	sw.gate.Disarm()
	select {
	case at := <-sw.gate.Kills():
		trace.Kills = append(trace.Kills, at)
		w.ensure()
	default:
	}
	if err != nil {
		t.Fatalf("%s: %v", runID, err)
	}
	point := CrashPoint{Target: target, Mode: mode, Final: len(trace.Events), Took: time.Since(began)}
	if len(trace.Kills) > 0 {
		point.Killed, point.At = true, trace.Kills[0]
		if point.At >= 1 && point.At <= len(trace.Events) {
			point.Event = trace.Events[point.At-1]
		}
	}
	for _, problem := range sw.check(ctx, t, a, w, runID, pull) {
		t.Errorf("%s %s: %s", runID, point, problem)
	}
	return point, trace.Events
}

// approve approves, as alice, each of the run's actions it has not
// approved yet. The signal needs no worker: a killed one's replacement
// applies it when it takes the run.
func approve(ctx context.Context, c client.Client, runID string, actionIDs []string, approved map[string]bool) error {
	if len(actionIDs) == 0 {
		return fmt.Errorf("the run waits without publishing an action")
	}
	for _, id := range actionIDs {
		if approved[id] {
			continue
		}
		if err := Approve(ctx, c, runID, id, "alice", "sweep-"+id); err != nil {
			return err
		}
		approved[id] = true
	}
	return nil
}

// snapshotOf queries the run until a worker answers; a worker the gate
// killed meanwhile is replaced, or no one would.
func snapshotOf(t *testing.T, c client.Client, w *sweepWorker, runID string) api.RunSnapshot {
	t.Helper()
	return Eventually(t, sweepRunTimeout, "run "+runID+" to answer its query", func() (api.RunSnapshot, bool, string) {
		w.ensure()
		snap, err := Snapshot(context.Background(), c, runID)
		if err != nil {
			return snap, false, err.Error()
		}
		return snap, true, ""
	})
}

// check is what must hold of a closed run wherever its worker was killed:
// it completed; its one action was approved once, by alice; each tool with
// a side effect ran in one step that succeeded and made exactly one effect,
// the one the step holds; no step is left running, outcome_unknown or in
// any other open state; and each tool call's result joined the
// conversation exactly once.
func (sw *sweeper) check(ctx context.Context, t *testing.T, a sweepAgent, w *sweepWorker, runID string, pull int) []string {
	t.Helper()
	var problems []string
	res, err := Result(ctx, sw.s.Client(), runID)
	if err != nil {
		return []string{err.Error()}
	}
	if res.Status != api.RunCompleted {
		problems = append(problems, fmt.Sprintf("the run ended %s: %s", res.Status, res.Error))
	}
	snap := snapshotOf(t, sw.s.Client(), w, runID)
	var decided []string
	for _, pa := range snap.Actions {
		decided = append(decided, fmt.Sprintf("%s %s by %s", pa.ToolName, pa.State, pa.DecidedBy))
	}
	if want := []string{a.gated + " approved by alice"}; !slices.Equal(decided, want) {
		problems = append(problems, fmt.Sprintf("actions %v, want %v", decided, want))
	}
	for _, st := range snap.Steps {
		if !st.Status.IsTerminal() {
			problems = append(problems, fmt.Sprintf("step %s (%s %s) left %s", st.ID, st.Type, st.ToolName, st.Status))
		}
	}
	for _, tool := range slices.Sorted(maps.Keys(a.effects)) {
		steps := toolSteps(snap, tool)
		if len(steps) != 1 {
			problems = append(problems, fmt.Sprintf("%d %s steps, want 1", len(steps), tool))
			continue
		}
		st := steps[0]
		if st.Status != api.StepSucceeded {
			problems = append(problems, fmt.Sprintf("%s step %s %s: %s", tool, st.ID, st.Status, st.Error))
		}
		if made, want := a.effects[tool](t, runID, pull), []string{st.ExternalResourceID}; !slices.Equal(made, want) {
			problems = append(problems, fmt.Sprintf("%s made %q, want exactly the step's %q", tool, made, want))
		}
	}
	answered := map[string]bool{}
	for _, st := range snap.Steps {
		// A permission check is a tool step of the run's own, not the model's: no call to answer.
		if st.Type != api.StepToolCall || st.CallID == "" || answered[st.CallID] {
			continue
		}
		answered[st.CallID] = true
		if n := toolResults(t, sw.s.Client(), runID, st.CallID); n != 1 {
			problems = append(problems, fmt.Sprintf("the result of %s (%s) joined the conversation %d times", st.CallID, st.ToolName, n))
		}
	}
	return problems
}

// numbered lists events as "1 WorkflowExecutionStarted, 2 ...".
func numbered(events []string) string {
	parts := make([]string, len(events))
	for i, e := range events {
		parts[i] = fmt.Sprintf("%d %s", i+1, e)
	}
	return strings.Join(parts, ", ")
}
