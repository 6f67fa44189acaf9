package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// kill says how the first attempt's worker dies.
type kill int

const (
	noKill kill = iota
	// killAfterEffect: the attempt's request is made and answered, and the
	// worker dies before it reports the answer.
	killAfterEffect
	// killInFlight: the worker dies as soon as the request is sent; the
	// request goes on without it (and lands when the fake lets it).
	killInFlight
)

// look is one Reconcile the run made.
type look struct {
	// Answer is the outcome, or "error" for a look that failed.
	Answer string
	// EffectBefore says the fake held the effect when the look began: a
	// not_created then is a wrong answer.
	EffectBefore bool
	// EffectAfter says the fake held the effect when the look ended: a
	// found without it is a wrong answer.
	EffectAfter bool
	// Refused says the fake refused this look's list.
	Refused bool
}

// wrapped is the action under test as the kit's worker runs it: the same
// action, observed, with the worker's death staged at its first attempt.
type wrapped struct {
	tools.Action
	fake Fake
	kill kill
	// refuseFirstLook arms RefuseNextList just before the first Reconcile.
	refuseFirstLook bool
	// dying is sent to when the first attempt's worker is to be killed.
	dying chan struct{}

	mu       sync.Mutex
	executes []json.RawMessage
	looks    []look
	// facts are what each Execute and Reconcile was told of its step, in
	// the order they began.
	facts []facts
	// detached are the attempts that outlive their worker.
	detached sync.WaitGroup
}

// errKilled is what an attempt whose worker was killed returns, as its
// context ends with the worker: no answer of it reaches the run.
var errKilled = errors.New("tooltest: the worker was killed with the request in flight")

func (w *wrapped) Execute(ctx context.Context, call tools.Call) (api.ToolOutput, error) {
	w.mu.Lock()
	w.executes = append(w.executes, call.Args)
	w.facts = append(w.facts, facts{execute: true, attempt: call.Attempt, keyAt: call.KeyRecordedAt})
	first := len(w.executes) == 1
	w.mu.Unlock()
	if !first || w.kill == noKill {
		return w.Action.Execute(ctx, call)
	}
	answered := make(chan struct{})
	w.detached.Add(1)
	go func() {
		defer w.detached.Done()
		defer close(answered)
		// The request goes on after its worker: the process is gone, the
		// bytes it sent are not.
		_, _ = w.Action.Execute(context.WithoutCancel(ctx), call)
	}()
	if w.kill == killAfterEffect {
		select {
		case <-answered:
		case <-ctx.Done():
		}
	}
	w.dying <- struct{}{}
	<-ctx.Done()
	return api.ToolOutput{}, errKilled
}

func (w *wrapped) Reconcile(ctx context.Context, call tools.Call) (api.ToolReconciliation, error) {
	w.mu.Lock()
	l := look{EffectBefore: w.fake.Effects() > 0}
	w.facts = append(w.facts, facts{attempt: call.Attempt, keyAt: call.KeyRecordedAt})
	if w.refuseFirstLook && len(w.looks) == 0 {
		l.Refused = true
		w.fake.RefuseNextList()
	}
	w.mu.Unlock()
	res, err := w.Action.Reconcile(ctx, call)
	l.EffectAfter = w.fake.Effects() > 0
	l.Answer = res.Outcome
	if err != nil {
		l.Answer = "error"
	}
	w.mu.Lock()
	w.looks = append(w.looks, l)
	w.mu.Unlock()
	return res, err
}

func (w *wrapped) seen() ([]json.RawMessage, []look, []facts) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]json.RawMessage(nil), w.executes...), append([]look(nil), w.looks...), append([]facts(nil), w.facts...)
}

// facts are what one Execute or Reconcile was told of its step
// (tools.Call.Attempt and KeyRecordedAt).
type facts struct {
	execute bool
	attempt int
	keyAt   time.Time
}

// checkFacts holds the calls of one step to what tools.Call promises: every
// one carries the same KeyRecordedAt, recorded (not zero); each Execute is
// a later attempt than the one before, from 1; a Reconcile looks after an
// attempt already begun or about to be (never an earlier one).
func checkFacts(calls []facts) []string {
	var problems []string
	var keyAt time.Time
	last, lastExecute := 0, 0
	for i, c := range calls {
		what := "Reconcile"
		if c.execute {
			what = "Execute"
		}
		switch {
		case c.keyAt.IsZero():
			problems = append(problems, fmt.Sprintf("call %d (%s) has no KeyRecordedAt", i+1, what))
		case keyAt.IsZero():
			keyAt = c.keyAt
		case !c.keyAt.Equal(keyAt):
			problems = append(problems, fmt.Sprintf("call %d (%s) has KeyRecordedAt %s, the first had %s: it must be the same for every attempt and look",
				i+1, what, c.keyAt.Format(time.RFC3339Nano), keyAt.Format(time.RFC3339Nano)))
		}
		switch {
		case c.attempt < 1:
			problems = append(problems, fmt.Sprintf("call %d (%s) has Attempt %d; attempts count from 1", i+1, what, c.attempt))
		case c.execute && c.attempt <= lastExecute:
			problems = append(problems, fmt.Sprintf("call %d (Execute) is attempt %d after attempt %d: each attempt must count up", i+1, c.attempt, lastExecute))
		case c.attempt < last:
			problems = append(problems, fmt.Sprintf("call %d (%s) has Attempt %d after attempt %d: the count went back", i+1, what, c.attempt, last))
		}
		if c.execute {
			lastExecute = max(lastExecute, c.attempt)
		}
		last = max(last, c.attempt)
	}
	return problems
}

// script is the kit's model: it calls the action once with the kit's
// arguments, then ends the run.
type script struct {
	tool string
	args json.RawMessage
}

func (s script) Next(_ context.Context, conv []api.Message, _ []api.ToolSpec) (api.ModelDecision, error) {
	for _, m := range conv {
		if m.Role == api.RoleTool {
			return api.ModelDecision{Final: "tooltest: the action ran", Model: "tooltest"}, nil
		}
	}
	return api.ModelDecision{Model: "tooltest", ToolCalls: []api.ToolCall{{ID: "tooltest-1", Name: s.tool, Arguments: s.args}}}, nil
}

// AnswersAtOnce: the script decides in-process.
func (script) AnswersAtOnce() bool { return true }
