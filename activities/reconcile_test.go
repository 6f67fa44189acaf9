package activities_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/activities"
	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/tools"
)

// lookingAction is a user's action whose look answers what the test says.
type lookingAction struct {
	bulkyAction
	err error
}

func (l lookingAction) Reconcile(context.Context, tools.Call) (api.ToolReconciliation, error) {
	return l.found, l.err
}

func reconcileWith(t *testing.T, action lookingAction) (api.ToolReconciliation, error) {
	t.Helper()
	acts := &activities.Activities{Tools: registryOf(t, []tools.Action{action})}
	return acts.ReconcileTool(context.Background(), api.ToolInput{Tool: action.name, Args: json.RawMessage(`{}`),
		OperationKey: "run-1:6", Approved: "export the report"})
}

// An answer the run has no branch for must not pass for not_created, which
// would send the action again: it is cannot_tell, saying what the tool said.
func TestALookAnsweringAnOutcomeTheRunDoesNotKnowCannotTell(t *testing.T) {
	for _, outcome := range []string{"", "maybe", "Found"} {
		out := api.ToolOutput{Content: json.RawMessage(`{"id":"r-9"}`), ExternalID: "r-9"}
		res, err := reconcileWith(t, lookingAction{bulkyAction: bulkyAction{bulkyTool: bulkyTool{name: "export_report"},
			found: api.ToolReconciliation{Outcome: outcome, Reason: "looked", Output: out}}})

		require.NoError(t, err, outcome)
		assert.Equal(t, api.ReconcileCannotTell, res.Outcome, outcome)
		assert.Equal(t, `export_report answered the unknown outcome "`+outcome+`"`, res.Reason)
		assert.Equal(t, out, res.Output, "%q: the output is kept for the step", outcome)
	}
}

// A look that fails is the activity's error, with its type, retryability
// and delay, for the workflow's retry policy to act on; it never passes
// for an outcome, whatever the tool put beside it.
func TestALookThatFailsIsItsErrorAndNoOutcome(t *testing.T) {
	for name, c := range map[string]struct {
		err     error
		errType string
	}{
		"no answer":    {errors.New("search: connection reset"), ""},
		"rate limited": {tools.RateLimited("search: slow down", 7*time.Second, nil), api.ErrTypeRateLimited},
	} {
		for _, outcome := range []string{"", api.ReconcileNotCreated} {
			_, err := reconcileWith(t, lookingAction{bulkyAction: bulkyAction{bulkyTool: bulkyTool{name: "export_report"},
				found: api.ToolReconciliation{Outcome: outcome}}, err: c.err})

			require.Error(t, err, "%s, beside %q", name, outcome)
			assert.Equal(t, c.err.Error(), err.Error(), name)
			var appErr *temporal.ApplicationError
			if c.errType == "" {
				assert.False(t, errors.As(err, &appErr) && appErr.NonRetryable(), "%s: retried", name)
				continue
			}
			require.ErrorAs(t, err, &appErr, name)
			assert.Equal(t, c.errType, appErr.Type(), name)
			var d api.RateLimitDetails
			require.NoError(t, appErr.Details(&d), name)
			assert.Equal(t, int64(7), d.RetryAfterSeconds, name)
		}
	}
}
