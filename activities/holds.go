package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"

	"github.com/agentrun/agentrun/api"
)

// CheckHolds asks the holds workflow whether an operator's hold stops the
// action a run is about to send. A query, not a signal: the run asks before
// every attempt, and a question must not grow the holds workflow's history.
// No holds workflow yet means nothing was ever held. A worker that cannot
// read runs (Runs nil: a test's, never a worker main's, see
// agentworker.WithConversationStore) has no holds to read either.
func (a *Activities) CheckHolds(ctx context.Context, c api.HoldCheck) (api.HoldMatch, error) {
	if a.Runs == nil {
		return api.HoldMatch{}, nil
	}
	value, err := a.Runs.QueryWorkflow(ctx, api.HoldsWorkflowID(activity.GetInfo(ctx).TaskQueue), "", api.QueryHolds)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return api.HoldMatch{}, nil
	}
	if err != nil {
		return api.HoldMatch{}, fmt.Errorf("query the holds: %w", err)
	}
	var view api.HoldsView
	if err := value.Get(&view); err != nil {
		return api.HoldMatch{}, fmt.Errorf("decode the holds: %w", err)
	}
	return api.HoldMatch{Hold: view.Matching(c)}, nil
}
