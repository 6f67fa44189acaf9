package approvalsrv

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/workflows"
)

// temporalCallTimeout bounds one call to Temporal so that a handler answers 503
// instead of hanging when the server or the workers are gone.
const temporalCallTimeout = 10 * time.Second

// maxListedRuns caps how many runs one listing walks through.
const maxListedRuns = 1000

// closedRunLookback is how long after its run closed an action ID is still
// found, to answer a late comment.
const closedRunLookback = 7 * 24 * time.Hour

// TemporalRuns reaches runs through the process's one Temporal client.
type TemporalRuns struct {
	Client client.Client
}

var _ Runs = TemporalRuns{}

func (t TemporalRuns) Snapshot(ctx context.Context, runID string) (workflows.RunSnapshot, error) {
	var snap workflows.RunSnapshot
	if err := t.query(ctx, runID, &snap, workflows.QueryRun); err != nil {
		return workflows.RunSnapshot{}, err
	}
	return snap, nil
}

func (t TemporalRuns) Events(ctx context.Context, runID string, sinceSequence int64) ([]workflows.Event, error) {
	var events []workflows.Event
	if err := t.query(ctx, runID, &events, workflows.QueryEvents, sinceSequence); err != nil {
		return nil, err
	}
	return events, nil
}

func (t TemporalRuns) query(ctx context.Context, runID string, into any, queryType string, args ...any) error {
	ctx, cancel := context.WithTimeout(ctx, temporalCallTimeout)
	defer cancel()
	value, err := t.Client.QueryWorkflow(ctx, runID, "", queryType, args...)
	if err != nil {
		return fmt.Errorf("query %s of run %s: %w", queryType, runID, classifyTemporalError(err))
	}
	if err := value.Get(into); err != nil {
		return fmt.Errorf("decode %s of run %s: %w", queryType, runID, err)
	}
	return nil
}

func (t TemporalRuns) Ended(ctx context.Context, runID string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, temporalCallTimeout)
	defer cancel()
	desc, err := t.Client.DescribeWorkflow(ctx, runID, "")
	if err != nil {
		return false, fmt.Errorf("describe run %s: %w", runID, classifyTemporalError(err))
	}
	status := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus()
	return status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}

func (t TemporalRuns) SignalApproval(ctx context.Context, runID string, sig workflows.ApprovalSignal) error {
	return t.signal(ctx, runID, workflows.SignalApproval, sig)
}

func (t TemporalRuns) SignalResolve(ctx context.Context, runID string, sig workflows.ResolveSignal) error {
	return t.signal(ctx, runID, workflows.SignalResolve, sig)
}

func (t TemporalRuns) SignalRefusal(ctx context.Context, runID string, sig workflows.RefusalSignal) error {
	return t.signal(ctx, runID, workflows.SignalRefusal, sig)
}

func (t TemporalRuns) signal(ctx context.Context, runID, name string, arg any) error {
	ctx, cancel := context.WithTimeout(ctx, temporalCallTimeout)
	defer cancel()
	if err := t.Client.SignalWorkflow(ctx, runID, "", name, arg); err != nil {
		return fmt.Errorf("signal %s to run %s: %w", name, runID, classifyTemporalError(err))
	}
	return nil
}

// ListRunIDs walks the visibility store; it is eventually consistent, so a
// run that changed status a moment ago may be listed under its old status.
func (t TemporalRuns) ListRunIDs(ctx context.Context, sel RunSelection) ([]string, error) {
	query := fmt.Sprintf("WorkflowType = %q AND ExecutionStatus = \"Running\"", workflows.WorkflowName)
	if sel == RunsWaitingForUser {
		query += fmt.Sprintf(" AND %s = %q", workflows.SearchAttrStatus.GetName(), workflows.RunWaitingForUser)
	}
	var ids []string
	var token []byte
	for {
		page, err := t.listPage(ctx, query, token)
		if err != nil {
			return nil, err
		}
		for _, exec := range page.GetExecutions() {
			ids = append(ids, exec.GetExecution().GetWorkflowId())
		}
		token = page.GetNextPageToken()
		if len(token) == 0 || len(ids) >= maxListedRuns {
			return ids, nil
		}
	}
}

// RunByActionID asks visibility once. Continue-as-new keeps the workflow ID
// and carries the search attribute over, so several executions may match;
// they are one run. A run that closed recently still answers, so that a late
// comment hears "already decided" rather than "no such action".
func (t TemporalRuns) RunByActionID(ctx context.Context, actionID string) (string, error) {
	// The ID is quoted into the query: only the checked alphabet may get there.
	if err := checkActionID(actionID); err != nil {
		return "", fmt.Errorf("find the run of action %q: %w", clip(actionID), err)
	}
	closedSince := time.Now().Add(-closedRunLookback).UTC().Format(time.RFC3339)
	query := fmt.Sprintf("WorkflowType = %q AND %s = '%s' AND (ExecutionStatus = \"Running\" OR CloseTime > '%s')",
		workflows.WorkflowName, workflows.SearchAttrActionIDs.GetName(), actionID, closedSince)
	page, err := t.listPage(ctx, query, nil)
	if err != nil {
		return "", err
	}
	executions := page.GetExecutions()
	if len(executions) == 0 {
		return "", fmt.Errorf("find the run of action %s: %w", actionID, ErrRunNotFound)
	}
	for _, exec := range executions {
		if exec.GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
			return exec.GetExecution().GetWorkflowId(), nil
		}
	}
	return executions[0].GetExecution().GetWorkflowId(), nil
}

func (t TemporalRuns) listPage(ctx context.Context, query string, token []byte) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, temporalCallTimeout)
	defer cancel()
	page, err := t.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query:         query,
		PageSize:      200,
		NextPageToken: token,
	})
	if err != nil {
		return nil, fmt.Errorf("list runs (%s): %w", query, classifyTemporalError(err))
	}
	return page, nil
}

// classifyTemporalError keeps the original error in the chain and adds the
// sentinel the handlers branch on.
func classifyTemporalError(err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return errors.Join(ErrRunNotFound, err)
	}
	var unavailable *serviceerror.Unavailable
	var deadline *serviceerror.DeadlineExceeded
	var exhausted *serviceerror.ResourceExhausted
	if errors.As(err, &unavailable) || errors.As(err, &deadline) || errors.As(err, &exhausted) ||
		errors.Is(err, context.DeadlineExceeded) {
		return errors.Join(ErrTemporalUnavailable, err)
	}
	return err
}
