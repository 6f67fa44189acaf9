package workflows

import (
	"cmp"
	"errors"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
	"github.com/agentrun/agentrun/tools"
)

// chooseAgent finds the run's agent in the registry; an agent's MaxSteps
// applies when the run sets none.
func (w *agentRun) chooseAgent(in *api.RunInput) error {
	name := in.Agent
	if name == "" {
		name = api.DefaultAgent
	}
	a, err := w.registry.Agent(name)
	if err != nil {
		return err
	}
	w.agent = a
	if in.MaxSteps <= 0 && a.MaxSteps > 0 {
		in.MaxSteps = a.MaxSteps
	}
	return nil
}

// offeredTools are the tools the model may call. The model call names
// only the agent (and whether the run posts without asking): its activity
// describes them from the worker's registry (activities/tools.go).
func (w *agentRun) offeredTools() []api.ToolSpec {
	return w.registry.Specs(w.agent)
}

// runToolCall runs one tool call to a terminal step and appends its result to
// the conversation exactly once. It returns an error only when the run must
// end: cancellation, or a required input it cannot read.
func (w *agentRun) runToolCall(ctx workflow.Context, call api.ToolCall) error {
	st := w.openStepFor(call.ID)
	c, refusal := w.checkCall(call)
	if refusal == "" && c.Action == nil {
		w.setLabel(api.ToolLabel(c.Spec))
	}
	if st == nil {
		st = w.newStep(ctx, api.StepToolCall, call.ID, call.Name, safeArguments(call.Arguments))
	}
	if refusal != "" {
		w.BadToolCalls++
		w.setStepStatus(ctx, st, api.StepFailed, refusal)
		w.appendToolResult(call.ID, call.Name, "failed: "+refusal)
		return nil
	}
	w.BadToolCalls = 0
	var (
		content string
		err     error
	)
	if c.Action != nil {
		// An action waits on the server: its approval, its attempt.
		w.localSinceWait = false
		content, err = w.runGatedTool(ctx, st, c)
	} else {
		content, err = w.finishRead(ctx, st, c, w.startRead(ctx, st, c))
	}
	if err != nil {
		return err
	}
	w.appendToolResult(call.ID, call.Name, content)
	return nil
}

// runReads runs the reads at the head of the open tool calls together when
// there are several: the model asked for them in one turn and they only
// read. Their results join the conversation in call order, so the
// conversation is the same whichever finishes first. It returns how many
// calls it ran, and the error that ends the run, if any.
func (w *agentRun) runReads(ctx workflow.Context) (int, error) {
	type read struct {
		call api.ToolCall
		c    tools.Checked
		st   *api.AgentStep
		f    workflow.Future
	}
	var batch []read
	for _, call := range w.OpenToolCalls {
		if w.openStepFor(call.ID) != nil {
			break
		}
		c, refusal := w.checkCall(call)
		if refusal != "" || c.Action != nil {
			break
		}
		batch = append(batch, read{call: call, c: c})
	}
	if len(batch) < 2 {
		return 0, nil
	}
	w.BadToolCalls = 0
	for i := range batch {
		r := &batch[i]
		r.st = w.newStep(ctx, api.StepToolCall, r.call.ID, r.call.Name, safeArguments(r.call.Arguments))
		r.f = w.startRead(ctx, r.st, r.c)
	}
	var ending error
	for _, r := range batch {
		content, err := w.finishRead(ctx, r.st, r.c, r.f)
		if err != nil {
			ending = cmp.Or(ending, err)
			continue
		}
		w.appendToolResult(r.call.ID, r.call.Name, content)
	}
	return len(batch), ending
}

// checkCall checks a call against the registry, for the run's agent. A run
// whose input lifted the agent's gate (RunInput.PostsWithoutAsking) asks
// no one.
func (w *agentRun) checkCall(call api.ToolCall) (tools.Checked, string) {
	c, why := w.registry.Check(w.agent, call, w.target)
	if why == "" && w.Run.PostsWithoutAsking != "" {
		c.Ask = false
	}
	return c, why
}

// openStepFor finds the unfinished tool step of a call, after a continue-as-new.
func (w *agentRun) openStepFor(callID string) *api.AgentStep {
	for _, st := range w.Steps {
		if st.Type == api.StepToolCall && st.CallID == callID && !st.Status.IsTerminal() {
			return st
		}
	}
	return nil
}

// startRead starts a read: its first try as a local activity
// (readFirstTryOptions), and, when that fails and may be retried, the other tries
// as one activity Temporal retries with backoff (Read). The future settles
// on the read's last try.
func (w *agentRun) startRead(ctx workflow.Context, st *api.AgentStep, c tools.Checked) workflow.Future {
	w.setLabel(api.ToolLabel(c.Spec))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	in := w.toolInput(st, c)
	// By name: a local activity given a method value would run it on the
	// workflow's nil *Activities, not the worker's registered one.
	lctx := workflow.WithLocalActivityOptions(ctx, readFirstTryOptions(st.ToolName, w.Run.TargetName(), w.in.ToolTimeout))
	first := workflow.ExecuteLocalActivity(lctx, api.ActivityExecuteTool, in)
	read, settle := workflow.NewFuture(ctx)
	// A coroutine, so that a turn's reads retry concurrently as they ran.
	workflow.Go(ctx, func(ctx workflow.Context) {
		var out api.ToolOutput
		err := first.Get(ctx, &out)
		if err != nil && ctx.Err() == nil && mayRetry(err, readNonRetryable) {
			err = w.retryRead(ctx, st, in, err, &out)
		}
		settle.Set(out, err)
	})
	return read
}

// retryRead runs a read's tries after its first failed: the first try's
// error is one of the step's events, and the server's pending activity,
// named after the step with api.ReadRetry, shows the others.
func (w *agentRun) retryRead(ctx workflow.Context, st *api.AgentStep, in api.ToolInput, firstErr error, out *api.ToolOutput) error {
	w.stepNote(ctx, st, "try 1 failed: "+errorMessage(firstErr))
	if err := workflow.Sleep(ctx, firstRetryDelay(firstErr)); err != nil {
		return err
	}
	actx := workflow.WithActivityOptions(ctx, w.ofStep(readRetryOptions(st.ToolName, w.Run.TargetName(), w.in.ToolTimeout), st, api.ReadRetry, 2))
	return workflow.ExecuteActivity(actx, api.ActivityExecuteTool, in).Get(ctx, out)
}

// firstRetryDelay is how long after a failed local first try (of a read
// or a model call) the second starts: readRetryDelay, or longer when the
// failure says when to try again (a rate limit's Retry-After or reset), as
// Temporal honours for an activity.
func firstRetryDelay(err error) time.Duration {
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.NextRetryDelay() > readRetryDelay {
		return app.NextRetryDelay()
	}
	return readRetryDelay
}

// mayRetry tells whether a failed first try may be tried again: not when
// it proved it cannot succeed (nonRetryable), nor when it was cancelled.
func mayRetry(err error, nonRetryable []string) bool {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return !app.NonRetryable() && !slices.Contains(nonRetryable, app.Type())
	}
	var canceled *temporal.CanceledError
	return !errors.As(err, &canceled)
}

// finishRead settles a read's step on its result. A required read that
// fails ends the run: a review of what the run could
// not read is no review. An optional one tells the model and the run goes
// on, its outcome partial.
func (w *agentRun) finishRead(ctx workflow.Context, st *api.AgentStep, c tools.Checked, f workflow.Future) (string, error) {
	var out api.ToolOutput
	if err := f.Get(ctx, &out); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		msg := errorMessage(err)
		w.setStepStatus(ctx, st, api.StepFailed, msg)
		if !c.Optional {
			return "", &inputUnreadable{Tool: st.ToolName, Msg: msg}
		}
		return "failed: " + msg, nil
	}
	st.SafeOutput = out.SafeOutput
	if st.SafeOutput == nil {
		st.SafeOutput = redact.JSON(out.Content)
	}
	w.setStepStatus(ctx, st, api.StepSucceeded, "")
	return string(out.Content), nil
}

// toolInput is what ExecuteTool and ReconcileTool get for a step's call:
// an action's with its attempt and when its operationKey was recorded.
func (w *agentRun) toolInput(st *api.AgentStep, c tools.Checked) api.ToolInput {
	in := api.NewToolInput(st.ToolName, c.Call.Args, w.target, st.OperationKey, c.Preview)
	if st.OperationKey != "" {
		in.Attempt, in.KeyRecordedAt = st.Attempt, st.KeyRecordedAt
	}
	return in
}

// ofStep names a step's activity after the step (api.StepActivityID), so
// that a client matches Temporal's pending activities to steps even while a
// turn's reads run together.
func (w *agentRun) ofStep(opts workflow.ActivityOptions, st *api.AgentStep, what string, attempt int) workflow.ActivityOptions {
	opts.ActivityID = api.StepActivityID(st.ID, what, attempt)
	return opts
}
