package runclient

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

// listPageSize is how many executions one visibility call returns.
const listPageSize = 200

// closedRunLookback is how long after its run closed an action ID is still
// found, to answer a late comment.
const closedRunLookback = 7 * 24 * time.Hour

// Listed is one run in a listing.
type Listed struct {
	RunID string `json:"runId"`
	// Status is the run's own status (AgentRunStatus), or the execution's
	// when the workflow was stopped from outside ("terminated").
	Status string `json:"status"`
	// Agent is AgentRunAgent; empty on runs started before it existed.
	Agent     string    `json:"agent,omitempty"`
	StartedAt time.Time `json:"startedAt"`
	// Standing is how the run stands (api.StandingOfRun): for an ended run,
	// the one it wrote into its memo (api.MemoStanding) as it ended, so
	// that a listing needs no query per run; for any other run, or one
	// whose memo this client cannot read, the standing of its status.
	Standing api.Standing `json:"standing"`
}

// ListFilter narrows a listing; a zero field matches every run. Both values
// are quoted into the visibility query, so query refuses any that breaks its
// rule (api.RunStatus.Known, api.ValidAgentName) with ErrBadFilter.
type ListFilter struct {
	Status api.RunStatus
	Agent  string
}

// ErrBadFilter: a listing's filter names no status agentrun has, or an agent
// name that breaks api.ValidAgentName; it was not queried.
var ErrBadFilter = errors.New("unknown status or malformed agent name in the filter")

func (f ListFilter) query() (string, error) {
	query := fmt.Sprintf("WorkflowType = %q", api.WorkflowName)
	if f.Status != "" {
		if !f.Status.Known() {
			return "", fmt.Errorf("list runs with status %.40q: %w", f.Status, ErrBadFilter)
		}
		query += fmt.Sprintf(" AND %s = '%s'", api.SearchAttrStatus.GetName(), f.Status)
	}
	if f.Agent != "" {
		if !api.ValidAgentName(f.Agent) {
			return "", fmt.Errorf("list runs of agent %.40q: %w", f.Agent, ErrBadFilter)
		}
		query += fmt.Sprintf(" AND %s = '%s'", api.SearchAttrAgent.GetName(), f.Agent)
	}
	return query, nil
}

// List lists every run that f matches, newest first. Visibility is
// eventually consistent: a run that changed status a moment ago may be
// listed under its old one.
func (c *Client) List(ctx context.Context, f ListFilter) ([]Listed, error) {
	query, err := f.query()
	if err != nil {
		return nil, err
	}
	var rows []Listed
	err = c.eachPage(ctx, query, listPageSize, func(execs []*workflowpb.WorkflowExecutionInfo) bool {
		rows = append(rows, c.listedOf(execs)...)
		return true
	})
	if err != nil {
		return nil, err
	}
	sortNewestFirst(rows)
	return rows, nil
}

// MaxPageSize bounds one page of ListPage.
const MaxPageSize = listPageSize

// Page is one page of a listing. NextPageToken, opaque and safe in a URL's
// query, asks for the next one; it is empty on the last.
type Page struct {
	Runs          []Listed `json:"runs"`
	NextPageToken string   `json:"nextPageToken,omitempty"`
}

// ErrBadPageToken: the page token is not one ListPage handed out.
var ErrBadPageToken = errors.New("the page token is not one a listing handed out")

// ListPage lists one page of at most size (1..MaxPageSize) runs that match
// f, from token ("" for the first page). Visibility hands pages out in its
// own order (on Temporal's stores, open runs first, newest first); each
// page is sorted newest first.
func (c *Client) ListPage(ctx context.Context, f ListFilter, size int, token string) (Page, error) {
	query, err := f.query()
	if err != nil {
		return Page{}, err
	}
	raw, err := openPageToken(query, token)
	if err != nil {
		return Page{}, err
	}
	page, err := c.listPage(ctx, query, min(max(size, 1), MaxPageSize), raw)
	if err != nil {
		return Page{}, err
	}
	rows := c.listedOf(page.GetExecutions())
	sortNewestFirst(rows)
	return Page{Runs: rows, NextPageToken: sealPageToken(query, page.GetNextPageToken())}, nil
}

// A page token is Temporal's behind a digest of it and of the query it
// pages. The server answers a token it cannot read with an error its client
// retries until the call's deadline, and a token of another filter would
// page the wrong listing: the digest turns a mangled, made-up or moved token
// into ErrBadPageToken at once. It is a checksum, not a MAC: the callers are
// authenticated, and one who forges a token only gets an error.
const pageTokenDigestBytes = 8

func pageTokenDigest(query string, raw []byte) []byte {
	h := sha256.New()
	h.Write([]byte(query))
	h.Write([]byte{0})
	h.Write(raw)
	return h.Sum(nil)[:pageTokenDigestBytes]
}

func sealPageToken(query string, raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(append(pageTokenDigest(query, raw), raw...))
}

func openPageToken(query, token string) ([]byte, error) {
	if token == "" {
		return nil, nil
	}
	sealed, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(sealed) <= pageTokenDigestBytes {
		return nil, fmt.Errorf("list runs: %w", ErrBadPageToken)
	}
	digest, raw := sealed[:pageTokenDigestBytes], sealed[pageTokenDigestBytes:]
	if !bytes.Equal(digest, pageTokenDigest(query, raw)) {
		return nil, fmt.Errorf("list runs: %w", ErrBadPageToken)
	}
	return raw, nil
}

func (c *Client) listedOf(execs []*workflowpb.WorkflowExecutionInfo) []Listed {
	rows := make([]Listed, 0, len(execs))
	for _, ex := range execs {
		fields := ex.GetSearchAttributes().GetIndexedFields()
		status := runStatusOf(fields, ex.GetStatus())
		rows = append(rows, Listed{
			RunID:     ex.GetExecution().GetWorkflowId(),
			Status:    status,
			Agent:     keywordOf(fields, api.SearchAttrAgent.GetName()),
			StartedAt: ex.GetStartTime().AsTime(),
			Standing:  c.standingOf(ex, api.RunStatus(status)),
		})
	}
	return rows
}

// standingOf reads the standing an ended run wrote into its memo. A run
// still open, one that ended before runs wrote it, and one whose memo this
// client cannot decode (encrypted for a codec it lacks) stand by their
// status alone.
func (c *Client) standingOf(ex *workflowpb.WorkflowExecutionInfo, status api.RunStatus) api.Standing {
	if p, ok := ex.GetMemo().GetFields()[api.MemoStanding]; ok && status.IsTerminal() {
		var s api.Standing
		if err := c.converter().FromPayload(p, &s); err == nil && s.Words != "" {
			return s
		}
	}
	return api.StandingOf(status, "")
}

// sortNewestFirst orders runs by start time, newest first, and runs started
// in the same instant by ID. Visibility stores do not promise an order (the
// dev server's SQLite and Elasticsearch differ), and a person looks for the
// run they just started at the top.
func sortNewestFirst(rows []Listed) {
	slices.SortStableFunc(rows, func(a, b Listed) int {
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
		return StatusName(execution)
	}
	if status := keywordOf(fields, api.SearchAttrStatus.GetName()); status != "" {
		return status
	}
	return StatusName(execution)
}

// keywordOf reads a Keyword search attribute; "" when the run has none.
func keywordOf(fields map[string]*commonpb.Payload, name string) string {
	var value string
	p, ok := fields[name]
	// Search attributes are always encoded by the default converter, never by
	// a custom codec.
	if !ok || converter.GetDefaultDataConverter().FromPayload(p, &value) != nil {
		return ""
	}
	return value
}

// ErrBadActionID: the ID breaks api.ValidActionID's rule, so it was not used.
var ErrBadActionID = errors.New("the action ID must look like act-0123456789abcdef: \"act-\" followed by letters, digits, '_' or '-', at most 64 characters")

// RunByActionID finds, in one visibility query, the open or recently closed
// run whose AgentRunActionIds holds actionID; ErrRunNotFound when none does.
// Continue-as-new keeps the workflow ID and carries the search attribute
// over, so several executions may match; they are one run. A run that
// closed recently still answers, so that a late comment hears "already
// decided" rather than "no such action".
func (c *Client) RunByActionID(ctx context.Context, actionID string) (string, error) {
	// The ID is quoted into the query: only the checked alphabet may get there.
	if !api.ValidActionID(actionID) {
		// %.40q: the ID came from outside and may be long; precision cuts
		// it at a rune boundary.
		return "", fmt.Errorf("find the run of action %.40q: %w", actionID, ErrBadActionID)
	}
	closedSince := c.now().Add(-closedRunLookback).UTC().Format(time.RFC3339)
	query := fmt.Sprintf("WorkflowType = %q AND %s = '%s' AND (ExecutionStatus = \"Running\" OR CloseTime > '%s')",
		api.WorkflowName, api.SearchAttrActionIDs.GetName(), actionID, closedSince)
	page, err := c.listPage(ctx, query, listPageSize, nil)
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

// eachPage hands visit the executions query matches, size at a time, until
// the last page or until visit answers false.
func (c *Client) eachPage(ctx context.Context, query string, size int, visit func([]*workflowpb.WorkflowExecutionInfo) (more bool)) error {
	var token []byte
	for {
		page, err := c.listPage(ctx, query, size, token)
		if err != nil {
			return err
		}
		token = page.GetNextPageToken()
		if !visit(page.GetExecutions()) || len(token) == 0 {
			return nil
		}
	}
}

func (c *Client) listPage(ctx context.Context, query string, size int, token []byte) (*workflowservice.ListWorkflowExecutionsResponse, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	page, err := c.temporal.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
		Query:         query,
		PageSize:      int32(size),
		NextPageToken: token,
	})
	if err != nil {
		return nil, c.classify(ctx, "", fmt.Sprintf("list runs (%s)", query), err)
	}
	return page, nil
}
