package tooltest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/testkit"
	"github.com/agentrun/agentrun/registration"
	"github.com/agentrun/agentrun/runclient"
	"github.com/agentrun/agentrun/tools"
)

// toolTimeout is the kit's runs' per-attempt timeout (RunInput.ToolTimeout).
const toolTimeout = 3 * time.Second

// heldFor is how long a held create waits before it lands: past its
// attempt's deadline, and within the resend margin every action has
// (api.ToolSpec.ResendMargin is at least the 2 s of clock skew past the
// deadline), so a resend sent before it lands is a second effect.
const heldFor = toolTimeout + 500*time.Millisecond

// runTimeout bounds one fault's run on a busy 2-core machine.
const runTimeout = 3 * time.Minute

// pollEvery is how often the kit asks a run whether it waits for approval.
const pollEvery = 100 * time.Millisecond

// lookEvery is how often the kit asks a run whether it waits for an
// operator: a run's end and a worker's death reach it at once.
const lookEvery = 250 * time.Millisecond

// approver approves every run of the kit; the runs name them.
const approver = "tooltest-approver"

// agentName is the kit's one-tool agent.
const agentName = "tooltest"

// fault is one row of the matrix.
type fault struct {
	name string
	// arm sets the fake's fault once the run waits for approval.
	arm  func(Fake)
	kill kill
	// refuseLook refuses the first Reconcile's look.
	refuseLook bool
	// replay sends the approval again, as it was and under another request.
	replay bool
	// edits approves Kit.Edited in place of the model's arguments, then
	// replays an approval of the model's.
	edits bool
}

// matrix is the faults the built-in actions pass (docs/tools.md).
var matrix = []fault{
	{name: "answer lost", arm: func(f Fake) { f.LoseNextAnswer(0) }},
	{name: "5xx after the effect", arm: func(f Fake) { f.LoseNextAnswer(http.StatusBadGateway) }},
	{name: "timeout", arm: func(f Fake) { f.HoldNextCreate(heldFor) }},
	{name: "killed in flight", kill: killAfterEffect},
	{name: "lands late after a kill", arm: func(f Fake) { f.HoldNextCreate(heldFor) }, kill: killInFlight},
	{name: "redirect", arm: func(f Fake) { f.LoseNextAnswer(http.StatusTemporaryRedirect) }},
	{name: "refused look", arm: func(f Fake) { f.LoseNextAnswer(0) }, refuseLook: true},
	{name: "replayed approval", replay: true},
	{name: "edited approval", arm: func(f Fake) { f.LoseNextAnswer(0) }, edits: true},
}

// kase is one fault's run: its own fake, queue, worker and run.
type kase struct {
	k      Kit
	f      fault
	fake   Fake
	action *wrapped
	c      client.Client
	runs   *runclient.Client
	queue  string
	acts   *activities.Activities
	worker worker.Worker
	runID  string
}

func newCase(t *testing.T, tc client.Client, k Kit, f fault) *kase {
	action, fake := k.New(t)
	if action == nil || fake == nil {
		t.Fatalf("tooltest: Kit.New returned no action or no fake")
	}
	w := &wrapped{Action: action, fake: fake, kill: f.kill, refuseFirstLook: f.refuseLook, dying: make(chan struct{}, 1)}
	reg := tools.NewRegistry()
	if err := reg.Add(w, tools.AlwaysAsk); err != nil {
		t.Fatalf("tooltest: register the action: %v", err)
	}
	name := action.Spec().Name
	if err := reg.AddAgent(tools.Agent{Name: agentName, Task: "Try the action on", TargetKind: k.Target.Kind,
		Tools: []tools.AgentTool{{Name: name}}}); err != nil {
		t.Fatalf("tooltest: the kit's agent: %v", err)
	}
	c := &kase{k: k, f: f, fake: fake, action: w, c: tc, queue: testkit.Unique(t, "tooltest")}
	c.runs = runclient.New(c.c, runclient.Options{})
	c.acts = &activities.Activities{Tools: reg, Model: script{tool: name, args: json.RawMessage(k.Args)}}
	c.runID = testkit.Unique(t, "tooltest")
	if err := c.startWorker(); err != nil {
		t.Fatalf("tooltest: %v", err)
	}
	t.Cleanup(func() { c.worker.Stop() })
	return c
}

// startWorker starts the case's worker, registered as every worker is.
// Its Stop cancels the attempts in flight at once, as a kill ends them.
func (c *kase) startWorker() error {
	w := worker.New(c.c, c.queue, worker.Options{StickyScheduleToStartTimeout: 500 * time.Millisecond})
	registration.Register(w, c.acts)
	if err := w.Start(); err != nil {
		return fmt.Errorf("start the worker on %s: %w", c.queue, err)
	}
	c.worker = w
	return nil
}

// run runs the fault and records what it showed in r; an error is the kit's
// own failure (the server, the worker), not the action's.
func (c *kase) run(ctx context.Context, r *Result) error {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	in := api.RunInput{Agent: agentName, UserID: "tooltest", Goal: "tooltest: " + c.f.name,
		Approvers: []string{approver}, ToolTimeout: toolTimeout, InlineConversationBytes: -1}.WithTarget(c.k.Target)
	run, err := c.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: c.runID, TaskQueue: c.queue}, api.WorkflowName, in)
	if err != nil {
		return fmt.Errorf("start a run: %w", err)
	}
	pending, err := c.waitForApproval(ctx)
	if err != nil {
		return err
	}
	if c.f.arm != nil {
		c.f.arm(c.fake)
	}
	if err := c.decide(ctx, pending); err != nil {
		return err
	}
	res, err := c.drive(ctx, run, r)
	if err != nil {
		return err
	}
	// An attempt that outlived its worker has landed or failed by now.
	c.action.detached.Wait()
	return c.check(ctx, r, res)
}

func (c *kase) waitForApproval(ctx context.Context) (api.PendingAction, error) {
	for {
		snap, err := c.runs.Snapshot(ctx, c.runID)
		if err == nil && snap.PendingAction != nil && snap.PendingAction.State == api.ActionWaiting {
			return *snap.PendingAction, nil
		}
		if err == nil && snap.Run.Status.IsTerminal() {
			return api.PendingAction{}, fmt.Errorf("the run ended (%s) without asking to approve the action: %s", snap.Run.Status, snap.Label)
		}
		select {
		case <-ctx.Done():
			return api.PendingAction{}, fmt.Errorf("run %s never asked for approval (last error: %v)", c.runID, err)
		case <-time.After(pollEvery):
		}
	}
}

// decide approves the action: with the edit, or several times over.
func (c *kase) decide(ctx context.Context, pending api.PendingAction) error {
	sig := api.ApprovalSignal{ActionID: pending.ID, Decision: api.DecisionApprove, Approver: approver,
		RequestID: "tooltest-1", Channel: "tooltest", ArgsHash: pending.ArgsHash}
	if c.f.edits {
		sig.Args = json.RawMessage(c.k.Edited)
	}
	if err := c.runs.Decide(ctx, c.runID, sig); err != nil {
		return fmt.Errorf("approve the action of %s: %w", c.runID, err)
	}
	if c.f.edits {
		// The model's own version, approved after the edit was: the
		// action is decided, and nothing of the original may run.
		_ = c.runs.Decide(ctx, c.runID, api.ApprovalSignal{ActionID: pending.ID, Decision: api.DecisionApprove,
			Approver: approver, RequestID: "tooltest-original", Channel: "tooltest", ArgsHash: pending.ArgsHash})
	}
	if c.f.replay {
		// The same decision again, and again under a request of its own:
		// whatever the run answers, nothing more may happen.
		_ = c.runs.Decide(ctx, c.runID, sig)
		again := sig
		again.RequestID = "tooltest-2"
		_ = c.runs.Decide(ctx, c.runID, again)
	}
	return nil
}

// drive runs the run to its end: it kills the worker when the action says
// it dies, and answers as an operator when the run cannot tell.
func (c *kase) drive(ctx context.Context, run client.WorkflowRun, r *Result) (api.RunResult, error) {
	var res api.RunResult
	ended := make(chan error, 1)
	go func() { ended <- run.Get(ctx, &res) }()
	look := time.NewTicker(lookEvery)
	defer look.Stop()
	// resolving: a resolve is sent, and the run has not shown it taken.
	resolving := false
	for {
		select {
		case err := <-ended:
			if err != nil {
				return res, fmt.Errorf("run %s did not end: %w", c.runID, err)
			}
			return res, nil
		case <-c.action.dying:
			c.worker.Stop()
			if err := c.startWorker(); err != nil {
				return res, err
			}
		case <-look.C:
			snap, err := c.runs.Snapshot(ctx, c.runID)
			if err != nil || snap.Run.Status.IsTerminal() {
				continue
			}
			if snap.AwaitingResolve == "" {
				resolving = false
				continue
			}
			if resolving || mayLand(snap) {
				continue
			}
			// The operator looks at the system, as the run could not, once
			// no request of the attempt can still land there.
			decision := api.ResolveRetry
			if c.fake.Effects() > 0 {
				decision = api.ResolveMarkSucceeded
			}
			err = c.runs.Resolve(ctx, c.runID, api.ResolveSignal{StepID: snap.AwaitingResolve, Decision: decision,
				By: "tooltest-operator", ExternalResourceID: "tooltest-operator"})
			if err != nil {
				return res, fmt.Errorf("resolve %s of %s: %w", snap.AwaitingResolve, c.runID, err)
			}
			resolving = true
			r.Answers = append(r.Answers, "operator "+decision)
		}
	}
}

// check holds the run to the promises.
func (c *kase) check(ctx context.Context, r *Result, res api.RunResult) error {
	executes, looks, calls := c.action.seen()
	for _, p := range checkFacts(calls) {
		r.problem("%s", p)
	}
	var answers []string
	for _, l := range looks {
		answers = append(answers, l.Answer)
		switch {
		case l.Refused && l.Answer == api.ReconcileNotCreated:
			r.problem("a look the fake refused answered not_created")
		case l.EffectBefore && l.Answer == api.ReconcileNotCreated:
			r.problem("a look answered not_created while the fake held the effect")
		case !l.EffectAfter && l.Answer == api.ReconcileFound:
			r.problem("a look answered found while the fake held no effect")
		}
	}
	r.Answers = append(answers, r.Answers...)
	r.Attempts = len(executes)
	if n := c.fake.Effects(); n != 1 {
		r.problem("the fake holds %d effects; want exactly one (%d attempts sent)", n, len(executes))
	}
	if res.Status != api.RunCompleted {
		r.problem("the run ended %s: %s", res.Status, res.Error)
	}
	snap, err := c.runs.Snapshot(ctx, c.runID)
	if err != nil {
		return fmt.Errorf("read run %s: %w", c.runID, err)
	}
	step := toolStep(snap)
	switch {
	case step == nil:
		r.problem("the run has no step of the action")
	case step.Status != api.StepSucceeded:
		r.problem("the action's step ended %s (%s) though its effect was made", step.Status, step.Error)
	}
	if c.f.replay && len(executes) != 1 {
		r.problem("the approval, sent three times, ran %d attempts; want one", len(executes))
	}
	for _, args := range executes {
		if c.f.edits && !sameJSON(args, []byte(c.k.Edited)) {
			r.problem("an attempt ran %s, not the approver's edit %s", args, c.k.Edited)
		}
	}
	if c.f.refuseLook && (len(looks) == 0 || !looks[0].Refused) {
		r.problem("the answer was lost, yet the run never looked")
	}
	return nil
}

// mayLand says a request of the step the run waits on may still land: an
// operator who looked now could see nothing of an effect about to appear.
func mayLand(snap api.RunSnapshot) bool {
	for _, st := range snap.Steps {
		if st.ID == snap.AwaitingResolve && st.ResendNotBefore != nil {
			return time.Now().Before(*st.ResendNotBefore)
		}
	}
	return false
}

func toolStep(snap api.RunSnapshot) *api.AgentStep {
	for i := range snap.Steps {
		if snap.Steps[i].Type == api.StepToolCall && snap.Steps[i].OperationKey != "" {
			return &snap.Steps[i]
		}
	}
	return nil
}

// sameJSON compares two JSON texts as values.
func sameJSON(a, b []byte) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return bytes.Equal(a, b)
	}
	ca, _ := json.Marshal(va)
	cb, _ := json.Marshal(vb)
	return bytes.Equal(ca, cb)
}
