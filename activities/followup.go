package activities

import (
	"context"
	"errors"
	"fmt"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/agentrun/agentrun/api"
)

// errTypeFollowUp: the earlier run cannot be followed up on as it is (none
// by that ID, too long a conversation, no way to read it); retrying the
// same activity cannot change that.
const errTypeFollowUp = "FollowUpRefused"

// RunQuerier is the part of a Temporal client that reads a run through
// its queries, which answer on a closed run too (its worker replays it).
type RunQuerier interface {
	QueryWorkflow(ctx context.Context, workflowID, runID, queryType string, args ...any) (converter.EncodedValue, error)
}

// LoadFollowUp reads the earlier run a follow-up continues from that run
// itself: its record (the run query), its actions in doubt (from all its
// steps, and those it carries from the runs it followed up) and its whole
// conversation. The
// workflow checks what it may continue (api.RefuseFollowUp); this only
// bounds the size.
func (a *Activities) LoadFollowUp(ctx context.Context, runID string) (api.FollowUpSource, error) {
	if a.Runs == nil {
		return api.FollowUpSource{}, temporal.NewNonRetryableApplicationError(
			"this worker cannot read earlier runs, so it cannot follow up on "+runID, errTypeFollowUp, nil)
	}
	var src api.FollowUpSource
	var snap api.RunSnapshot
	if err := a.queryRun(ctx, runID, api.QueryRun, &snap); err != nil {
		return src, err
	}
	src.Run = snap.Run
	steps := snap.Steps
	for from := 0; from < snap.StepsFrom; {
		var page api.StepsPage
		if err := a.queryRun(ctx, runID, api.QuerySteps, &page, api.StepPage{From: from, Limit: snap.StepsFrom - from}); err != nil {
			return src, err
		}
		if len(page.Steps) == 0 {
			break
		}
		steps = append(steps, page.Steps...)
		from += len(page.Steps)
	}
	src.InDoubt = api.FollowUpInDoubt(snap, steps)
	if err := a.queryRun(ctx, runID, api.QueryConversation, &src.Conversation, 0, 0); err != nil {
		return src, err
	}
	canonical, err := api.CanonicalConversation(src.Conversation)
	if err != nil {
		return src, temporal.NewNonRetryableApplicationError(err.Error(), errTypeFollowUp, err)
	}
	if len(canonical) > api.MaxFollowUpConversationBytes {
		return api.FollowUpSource{}, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
			"the conversation of run %s is %d bytes, over the %d a follow-up carries: start a new run instead",
			runID, len(canonical), api.MaxFollowUpConversationBytes), errTypeFollowUp, nil)
	}
	return src, nil
}

func (a *Activities) queryRun(ctx context.Context, runID, query string, into any, args ...any) error {
	value, err := a.Runs.QueryWorkflow(ctx, runID, "", query, args...)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return temporal.NewNonRetryableApplicationError("there is no run "+runID+" to follow up on", errTypeFollowUp, err)
	}
	if err != nil {
		return fmt.Errorf("query %s of run %s: %w", query, runID, err)
	}
	if err := value.Get(into); err != nil {
		return temporal.NewNonRetryableApplicationError(fmt.Sprintf("decode the %s query of run %s", query, runID), errTypeFollowUp, err)
	}
	return nil
}
