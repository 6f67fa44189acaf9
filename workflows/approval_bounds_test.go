package workflows

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/testsuite"

	"github.com/agentrun/agentrun/api"
	"github.com/agentrun/agentrun/internal/ghsandbox"
)

// schemaOfSize is pin's argument schema padded, in its description, to
// exactly n bytes.
func schemaOfSize(t *testing.T, n int) json.RawMessage {
	t.Helper()
	head, tail := strings.TrimSuffix(pinSchema, "}")+`,"description":"`, `"}`
	pad := n - len(head) - len(tail)
	require.Positive(t, pad)
	schema := json.RawMessage(head + strings.Repeat("a", pad) + tail)
	require.Len(t, schema, n)
	require.True(t, json.Valid(schema))
	return schema
}

// An editable action carries its tool's argument schema for the page's
// edit form up to api.MaxArgsSchemaBytes; one byte more and the action
// carries none (the page offers the raw JSON), but stays editable.
func TestAnEditableActionCarriesItsArgumentSchemaUpToItsBound(t *testing.T) {
	for name, tc := range map[string]struct {
		size  int
		shown bool
	}{
		"at the bound":  {api.MaxArgsSchemaBytes, true},
		"one byte over": {api.MaxArgsSchemaBytes + 1, false},
	} {
		t.Run(name, func(t *testing.T) {
			schema := schemaOfSize(t, tc.size)
			var suite testsuite.WorkflowTestSuite
			r := newPinRun(t, &suite, &pinTool{schema: schema}, []api.ToolCall{pinCall("p1", "acme/widgets#1", "word")})
			var shown api.PendingAction
			r.at(t, time.Minute, func(actions []api.PendingAction) {
				require.Len(t, actions, 1)
				shown = actions[0]
				r.decide(api.ApprovalSignal{ActionID: shown.ID, Decision: api.DecisionReject, Reason: "only looking at the form"})
			})

			r.runPinner(t, "alice")

			require.True(t, shown.Editable, "the agent lets an approver edit a pin")
			require.JSONEq(t, `{"on":"acme/widgets#1","word":"word"}`, string(shown.Args))
			if tc.shown {
				require.JSONEq(t, string(schema), string(shown.ArgsSchema))
			} else {
				require.Zero(t, len(shown.ArgsSchema), "no schema for the form")
			}
		})
	}
}

// A cancel while the run waits for approval ends the run cancelled in the
// generation it reaches, even when that generation's history is due for a
// continue-as-new: the cancel's own event makes it due, and wakes the wait
// on the same workflow task as the cancel. The action says who cancelled
// and why. (On a real worker the cancelled approval timer also wakes the
// wait at once, so every cancel while waiting passes this check; the test
// environment settles that timer a task later.)
func TestACancelWhileWaitingEndsTheRunThoughItsHistoryIsDueForContinueAsNew(t *testing.T) {
	sandbox := ghsandbox.New(ghsandbox.DefaultFixture())
	in := checkpointWaitingForApproval(t, sandbox)
	h := newHarnessWith(t, sandbox)
	h.env.SetContinuedExecutionRunID("previous-generation")
	h.env.SetCurrentHistoryLength(1000)
	h.whenWaiting(time.Minute, func(string) { h.cancelAs("carol", "wrong pull request", "c1") })

	snap := h.runPostingNothing(in)

	requireCancelledBy(t, snap, "carol")
	require.Equal(t, api.ActionExpired, snap.PendingAction.State)
	require.Empty(t, snap.PendingAction.DecidedBy)
	require.Equal(t, "run cancelled by carol: wrong pull request", snap.PendingAction.Reason)
	require.Equal(t, api.StepExpired, h.commentStep(snap).Status)
}
