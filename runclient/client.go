// Package runclient is the one typed client of AgentRun workflows: start a
// run, read its snapshot and events, send it decisions, and find runs
// through visibility. The starter CLI, the approval server, the end-to-end
// tests and the benchmarks all talk to runs through it, so a wire name or an
// error rule changes in one place.
//
// It wraps a Temporal client.Client made elsewhere (internal/temporalclient
// in the mains): one Temporal client per process.
package runclient

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/agentrun/agentrun/api"
)

// Options tunes a Client.
type Options struct {
	// CallTimeout bounds each call to Temporal, so that a server answering
	// requests gives up instead of hanging when Temporal or the workers are
	// gone. Zero leaves calls bounded only by the caller's context.
	CallTimeout time.Duration
	// DataConverter is the one the process's Temporal client has
	// (temporalclient.Config.DataConverter); nil means the default. The inbox
	// reads runs' memos through it: with AGENTRUN_PAYLOAD_KEYS, a client
	// without it cannot, and asks each waiting run instead.
	DataConverter converter.DataConverter
	// Address and Namespace say where the wrapped client is connected
	// (temporalclient.Config's): the search-attribute setup lists the
	// namespace's, and the command a MissingSearchAttributesError gives
	// names both. An empty Namespace is DefaultNamespace.
	Address, Namespace string
	// PrecheckTimeout bounds the run query Reach asks before a person's
	// command is signalled; zero is DefaultPrecheckTimeout.
	PrecheckTimeout time.Duration
}

// DefaultNamespace is Temporal's, the namespace of a client given none.
const DefaultNamespace = "default"

// Client talks to AgentRun workflows through a Temporal client.
type Client struct {
	temporal client.Client
	opts     Options
	// now is the clock of visibility queries' time windows.
	now func() time.Time
}

// New wraps c; the caller still owns c and closes it.
func New(c client.Client, opts Options) *Client {
	opts.Namespace = cmp.Or(opts.Namespace, DefaultNamespace)
	return &Client{temporal: c, opts: opts, now: time.Now}
}

// Temporal is the wrapped client, for what runclient does not cover
// (waiting on a workflow's result, say).
func (c *Client) Temporal() client.Client { return c.temporal }

func (c *Client) converter() converter.DataConverter {
	if c.opts.DataConverter == nil {
		return converter.GetDefaultDataConverter()
	}
	return c.opts.DataConverter
}

func (c *Client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.opts.CallTimeout <= 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, c.opts.CallTimeout)
}

// Snapshot answers the run query: the run, its steps and its pending action.
func (c *Client) Snapshot(ctx context.Context, runID string) (api.RunSnapshot, error) {
	var snap api.RunSnapshot
	if err := c.query(ctx, runID, &snap, api.QueryRun); err != nil {
		return api.RunSnapshot{}, err
	}
	return snap, nil
}

// SnapshotAllSteps is Snapshot with every step of the run, not only the
// newest api.SnapshotSteps: it pages the older ones through the steps
// query, for a reader that shows the whole run (`starter status`).
func (c *Client) SnapshotAllSteps(ctx context.Context, runID string) (api.RunSnapshot, error) {
	snap, err := c.Snapshot(ctx, runID)
	if err != nil {
		return snap, err
	}
	older := make([]api.AgentStep, 0, snap.StepsFrom)
	for len(older) < snap.StepsFrom {
		var page api.StepsPage
		if err := c.query(ctx, runID, &page, api.QuerySteps, api.StepPage{From: len(older), Limit: snap.StepsFrom - len(older)}); err != nil {
			return snap, err
		}
		if len(page.Steps) == 0 {
			return snap, fmt.Errorf("run %s: the steps query answered no steps from %d of %d", runID, len(older), snap.StepsFrom)
		}
		older = append(older, page.Steps...)
	}
	// A step that went on while paging shows as the snapshot saw it.
	snap.Steps = append(older[:snap.StepsFrom], snap.Steps...)
	snap.StepsFrom = 0
	return snap, nil
}

// Events returns the run's events after sinceSequence, in order.
func (c *Client) Events(ctx context.Context, runID string, sinceSequence int64) ([]api.Event, error) {
	var events []api.Event
	if err := c.query(ctx, runID, &events, api.QueryEvents, sinceSequence); err != nil {
		return nil, err
	}
	return events, nil
}

func (c *Client) query(ctx context.Context, runID string, into any, queryType string, args ...any) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	value, err := c.temporal.QueryWorkflow(ctx, runID, "", queryType, args...)
	if err != nil {
		return c.classify(ctx, runID, "query "+queryType+" of run", err)
	}
	if err := value.Get(into); err != nil {
		return fmt.Errorf("decode the %s query of run %s: %w", queryType, runID, err)
	}
	return nil
}

// Description is what Temporal itself knows of a run, without asking its
// workflow code: whether it is open, and the activities it has in flight.
type Description struct {
	Status enumspb.WorkflowExecutionStatus
	// PendingActivities carry the try counts and last failures that the
	// run's own state does not record (it records outcomes, not tries).
	PendingActivities []*workflowpb.PendingActivityInfo
	// RequestHash is the run's memo api.MemoRequestHash: set on runs started
	// through an idempotency key (StartRequest.RequestHash).
	RequestHash string
	// RunStatus is the run's AgentRunStatus search attribute as its last
	// workflow task left it; "" before its first.
	RunStatus api.RunStatus
	// Inbox is the run's api.MemoInbox, from its latest wait for a person;
	// nil when it never waited, or when this client cannot read the memo
	// (encrypted, without the converter that decrypts it).
	Inbox *api.InboxMemo
	// Posted is the run's api.MemoPosted, the comments it posted, written
	// once it ended; nil before, for a run that ended before the memo
	// existed, or when this client cannot read the memo.
	Posted []api.PostedOutcome
}

// Open tells whether the run can still take a signal.
func (d Description) Open() bool { return d.Status == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING }

// StatusName is the execution status in lower case ("completed", "terminated").
func (d Description) StatusName() string { return StatusName(d.Status) }

// Describe asks Temporal for the run's execution.
func (c *Client) Describe(ctx context.Context, runID string) (Description, error) {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	desc, err := c.temporal.DescribeWorkflow(ctx, runID, "")
	if err != nil {
		return Description{}, c.classify(ctx, runID, "describe run", err)
	}
	d := Description{
		Status:            desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(),
		PendingActivities: desc.RawResponse.GetPendingActivities(),
	}
	if status, ok := desc.TypedSearchAttributes.GetKeyword(api.SearchAttrStatus); ok {
		d.RunStatus = api.RunStatus(status)
	}
	if _, ok := desc.Memo.GetFields()[api.MemoInbox]; ok {
		var inbox api.InboxMemo
		if err := desc.GetMemoValue(api.MemoInbox, &inbox); err == nil {
			d.Inbox = &inbox
		}
	}
	if _, ok := desc.Memo.GetFields()[api.MemoPosted]; ok {
		var posted []api.PostedOutcome
		if err := desc.GetMemoValue(api.MemoPosted, &posted); err == nil {
			d.Posted = posted
		}
	}
	if _, ok := desc.Memo.GetFields()[api.MemoRequestHash]; ok {
		// Through the client's converter: with AGENTRUN_PAYLOAD_KEYS the memo
		// is encrypted like every payload.
		if err := desc.GetMemoValue(api.MemoRequestHash, &d.RequestHash); err != nil {
			return Description{}, fmt.Errorf("decode the request hash of run %s: %w", runID, err)
		}
	}
	return d, nil
}

// Ended tells whether the run's workflow is no longer running.
func (c *Client) Ended(ctx context.Context, runID string) (bool, error) {
	d, err := c.Describe(ctx, runID)
	if err != nil {
		return false, err
	}
	return !d.Open(), nil
}

// Decide sends a person's decision on the pending action. It checks
// nothing: the approval server checks who may decide before it calls this,
// and the run ignores (with a signal_ignored event) what it cannot apply.
func (c *Client) Decide(ctx context.Context, runID string, sig api.ApprovalSignal) error {
	return c.signal(ctx, runID, api.SignalApproval, sig)
}

// Resolve sends an operator's decision on a step whose outcome
// reconciliation could not tell.
func (c *Client) Resolve(ctx context.Context, runID string, sig api.ResolveSignal) error {
	return c.signal(ctx, runID, api.SignalResolve, sig)
}

// Cancel asks the run to stop once no action it started is in doubt. It
// checks nothing: the approval server checks who may cancel before it calls
// this, and the run checks again, ignoring (with a signal_ignored event) a
// cancel it does not allow.
func (c *Client) Cancel(ctx context.Context, runID string, sig api.CancelSignal) error {
	return c.signal(ctx, runID, api.SignalCancel, sig)
}

// Refuse records in the run a decision the approval server refused, so that
// the refusal shows on the run's page after the server forgets it.
func (c *Client) Refuse(ctx context.Context, runID string, sig api.RefusalSignal) error {
	return c.signal(ctx, runID, api.SignalRefusal, sig)
}

// Supersede tells a review run its pull request moved on (a new head, or
// closed): its waiting actions expire and it completes.
func (c *Client) Supersede(ctx context.Context, runID string, sig api.SupersedeSignal) error {
	if err := sig.Validate(); err != nil {
		return err
	}
	return c.signal(ctx, runID, api.SignalSupersede, sig)
}

func (c *Client) signal(ctx context.Context, runID, name string, arg any) error {
	ctx, cancel := c.bound(ctx)
	defer cancel()
	if err := c.temporal.SignalWorkflow(ctx, runID, "", name, arg); err != nil {
		return c.classify(ctx, runID, "signal "+name+" to run", err)
	}
	return nil
}

// StatusName is a Temporal execution status in lower case ("completed",
// "terminated", ...), as the starter prints it.
func StatusName(s enumspb.WorkflowExecutionStatus) string {
	name, ok := enumspb.WorkflowExecutionStatus_name[int32(s)]
	if !ok {
		return "unknown"
	}
	return strings.ToLower(strings.TrimPrefix(name, "WORKFLOW_EXECUTION_STATUS_"))
}
