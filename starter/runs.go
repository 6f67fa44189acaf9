package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/agentrun/agentrun/workflows"
)

// describeRun returns the run's execution status, or runNotFoundError.
func describeRun(ctx context.Context, c client.Client, runID string) (enumspb.WorkflowExecutionStatus, error) {
	desc, err := c.DescribeWorkflow(ctx, runID, "")
	if err != nil {
		return 0, runError(runID, "describe run", err)
	}
	return desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(), nil
}

// requireOpenRun fails unless the run exists and can still take a signal.
func requireOpenRun(ctx context.Context, c client.Client, runID string) error {
	status, err := describeRun(ctx, c, runID)
	if err != nil {
		return err
	}
	if status != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return &runClosedError{runID: runID, status: executionStatusName(status)}
	}
	return nil
}

func querySnapshot(ctx context.Context, c client.Client, runID string) (workflows.RunSnapshot, error) {
	var snap workflows.RunSnapshot
	value, err := c.QueryWorkflow(ctx, runID, "", workflows.QueryRun)
	if err != nil {
		return snap, runError(runID, "query run", err)
	}
	if err := value.Get(&snap); err != nil {
		return snap, fmt.Errorf("decode the snapshot of %s: %w", runID, err)
	}
	return snap, nil
}

func queryEvents(ctx context.Context, c client.Client, runID string, since int64) ([]workflows.Event, error) {
	var events []workflows.Event
	value, err := c.QueryWorkflow(ctx, runID, "", workflows.QueryEvents, since)
	if err != nil {
		return nil, runError(runID, "query events", err)
	}
	if err := value.Get(&events); err != nil {
		return nil, fmt.Errorf("decode the events of %s: %w", runID, err)
	}
	return events, nil
}

// runError turns the server's NotFound into the one-line runNotFoundError.
func runError(runID, doing string, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return &runNotFoundError{runID: runID}
	}
	return fmt.Errorf("%s %s: %w", doing, runID, err)
}

// executionStatusName is the lower-case name of a Temporal execution status
// ("completed", "terminated", ...).
func executionStatusName(s enumspb.WorkflowExecutionStatus) string {
	name, ok := enumspb.WorkflowExecutionStatus_name[int32(s)]
	if !ok {
		return "unknown"
	}
	return strings.ToLower(strings.TrimPrefix(name, "WORKFLOW_EXECUTION_STATUS_"))
}
