package main

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/internal/approvalsrv"
	"github.com/agentrun/agentrun/workflows"
)

const listSynopsis = "list [--status STATUS] [--json]"

// runStatuses are the values --status accepts.
var runStatuses = []workflows.RunStatus{
	workflows.RunRunning, workflows.RunWaitingForUser, workflows.RunReconciling,
	workflows.RunCompleted, workflows.RunFailed, workflows.RunCancelled,
}

// listCommand lists runs, newest first; with --status waiting_for_user it
// lists the approval inbox instead: one row per action waiting for a person.
type listCommand struct {
	env    *env
	status string
	json   bool
}

func (c *listCommand) flags() *flag.FlagSet {
	fs := newFlagSet("list")
	fs.StringVar(&c.status, "status", "", "only runs in this `STATUS`: "+joinStatuses()+"; waiting_for_user lists one row per action waiting for approval")
	fs.BoolVar(&c.json, "json", false, "print JSON")
	return fs
}

func (c *listCommand) Run(ctx context.Context, args []string) error {
	fs := c.flags()
	positional, err := parseArgs(fs, listSynopsis, args)
	if err != nil {
		return err
	}
	if len(positional) > 0 {
		return usageErr(fs, listSynopsis, fmt.Errorf("unexpected arguments: %s", strings.Join(positional, " ")))
	}
	if c.status != "" && !knownStatus(c.status) {
		return usageErr(fs, listSynopsis, fmt.Errorf("--status %q: want one of %s", c.status, joinStatuses()))
	}
	tc, err := c.env.temporal(ctx)
	if err != nil {
		return err
	}
	if c.status == string(workflows.RunWaitingForUser) {
		return c.showApprovalInbox(ctx, tc)
	}
	rows, err := listRuns(ctx, tc, listQuery(c.status))
	if err != nil {
		return err
	}
	if c.json {
		return writeJSON(c.env.stdout, rows)
	}
	return renderList(c.env.stdout, rows)
}

// showApprovalInbox lists what the approval server's GET /v1/approvals
// lists, through the same function, so that a person at a terminal and one
// at the inbox page see the same actions waiting.
func (c *listCommand) showApprovalInbox(ctx context.Context, tc client.Client) error {
	inbox, err := approvalsrv.PendingApprovals(ctx, approvalsrv.TemporalRuns{Client: tc})
	if err != nil {
		return fmt.Errorf("list pending approvals: %w", err)
	}
	if c.json {
		return writeJSON(c.env.stdout, inbox)
	}
	return renderApprovalInbox(c.env.stdout, inbox)
}

// listQuery is the visibility query; status has been checked against
// runStatuses, so it needs no escaping.
func listQuery(status string) string {
	q := fmt.Sprintf("WorkflowType = %q", workflows.WorkflowName)
	if status != "" {
		q += fmt.Sprintf(" AND %s = %q", workflows.SearchAttrStatus.GetName(), status)
	}
	return q
}

// listedRun is one row of `starter list`.
type listedRun struct {
	RunID     string    `json:"runId"`
	Status    string    `json:"status"`
	StartedAt time.Time `json:"startedAt"`
}

func listRuns(ctx context.Context, c client.Client, query string) ([]listedRun, error) {
	var rows []listedRun
	var page []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: query, NextPageToken: page})
		if err != nil {
			return nil, fmt.Errorf("list runs (%s): %w", query, err)
		}
		for _, ex := range resp.GetExecutions() {
			rows = append(rows, listedRun{
				RunID:     ex.GetExecution().GetWorkflowId(),
				Status:    runStatusOf(ex.GetSearchAttributes().GetIndexedFields(), ex.GetStatus()),
				StartedAt: ex.GetStartTime().AsTime(),
			})
		}
		page = resp.GetNextPageToken()
		if len(page) == 0 {
			sortNewestFirst(rows)
			return rows, nil
		}
	}
}

// sortNewestFirst orders runs by start time, newest first, and runs started
// in the same instant by ID. Visibility stores do not promise an order (the
// dev server's SQLite and Elasticsearch differ), and a person looks for the
// run they just started at the top.
func sortNewestFirst(rows []listedRun) {
	slices.SortStableFunc(rows, func(a, b listedRun) int {
		if c := b.StartedAt.Compare(a.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
}

// runStatusOf reads AgentRunStatus. A workflow stopped from outside the run
// (terminated, timed out) never updated it, so then the execution status
// tells the truth.
func runStatusOf(fields map[string]*commonpb.Payload, execution enumspb.WorkflowExecutionStatus) string {
	switch execution {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED,
		enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
	default:
		return executionStatusName(execution)
	}
	var status string
	p, ok := fields[workflows.SearchAttrStatus.GetName()]
	// Search attributes are always encoded by the default converter, never by
	// a custom codec.
	if !ok || converter.GetDefaultDataConverter().FromPayload(p, &status) != nil || status == "" {
		return executionStatusName(execution)
	}
	return status
}

func knownStatus(s string) bool {
	for _, known := range runStatuses {
		if string(known) == s {
			return true
		}
	}
	return false
}

func joinStatuses() string {
	names := make([]string, len(runStatuses))
	for i, s := range runStatuses {
		names[i] = string(s)
	}
	return strings.Join(names, ", ")
}
