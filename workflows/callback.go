package workflows

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/url"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/redact"
)

// Retry shape of a result delivery: quick at first, for a receiver that
// dropped one answer, then every 10 minutes until the deadline.
const (
	callbackFirstRetry   = time.Second
	callbackMaxRetry     = 10 * time.Minute
	callbackAttemptLimit = 30 * time.Second
)

// endWithCallback delivers the result of a run that ended (completed, failed
// or cancelled) to its callback, then returns the run's own result
// unchanged: the run's status never depends on the receiver. A run without
// a callback, or one continuing as new, schedules nothing, so its history
// is what it was before callbacks existed.
func (w *agentRun) endWithCallback(ctx workflow.Context, res api.RunResult, runErr error) (api.RunResult, error) {
	var next *workflow.ContinueAsNewError
	if w.in.Callback == nil || errors.As(runErr, &next) || !res.Status.IsTerminal() {
		return res, runErr
	}
	// A cancelled workflow's context is done; the delivery still happens.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	w.deliverResult(dctx, res)
	return res, runErr
}

// deliverResult is the deliver_result step: one activity whose retries run
// until a 2xx or the deadline, or end at a refusal (a 4xx other than 408
// and 429, or a URL the worker does not allow).
func (w *agentRun) deliverResult(ctx workflow.Context, res api.RunResult) {
	cb := w.in.Callback
	body, err := json.Marshal(api.CallbackResult{
		RunID: w.Run.ID, Agent: w.in.Agent, Status: res.Status, Answer: res.Answer, Error: res.Error, Outcome: res.Outcome,
	})
	mustNotFail(err)
	key := api.CallbackIdempotencyKey(w.Run.ID)
	deadline := cmp.Or(cb.Deadline, api.DefaultCallbackDeadline)
	st := w.newStep(ctx, api.StepToolCall, "", api.ToolDeliverResult, redact.JSON(map[string]any{
		"url": withoutQuery(cb.URL), "idempotencyKey": key, "deadline": deadline.String(),
	}))
	w.setStepStatus(ctx, st, api.StepRunning, "")
	actx := workflow.WithActivityOptions(ctx, w.ofStep(workflow.ActivityOptions{
		ScheduleToCloseTimeout: deadline,
		StartToCloseTimeout:    callbackAttemptLimit,
		RetryPolicy: &temporal.RetryPolicy{
			InitialInterval: callbackFirstRetry, BackoffCoefficient: 2, MaximumInterval: callbackMaxRetry,
		},
	}, st, "", 0))
	var receipt api.CallbackReceipt
	err = workflow.ExecuteActivity(actx, api.ActivityDeliverResult, api.CallbackDelivery{RunID: w.Run.ID, URL: cb.URL, Body: body}).Get(ctx, &receipt)
	if err != nil {
		w.setStepStatus(ctx, st, api.StepFailed, "result not delivered: "+errorMessage(err))
		// A receiver that never took the result is the delivery's outcome,
		// not a tool the run's work depended on.
		w.DegradedSteps = dropLast(w.DegradedSteps, st.ID)
		return
	}
	st.Attempt = max(receipt.Attempt, 1)
	st.SafeOutput = redact.JSON(receipt)
	w.setStepStatus(ctx, st, api.StepSucceeded, "")
}

func dropLast(ids []string, id string) []string {
	if n := len(ids); n > 0 && ids[n-1] == id {
		return ids[:n-1]
	}
	return ids
}

// withoutQuery is the URL as a step shows it: a query may carry the
// receiver's token, which a step's readers need not see.
func withoutQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	u.RawQuery, u.ForceQuery = "", false
	return u.String()
}
